package io.streamhouse.launcher;

import io.streamhouse.connect.LakeConnector;
import io.streamhouse.domain.topic.LakeNames;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * The Iceberg tables and the Iceberg Kafka Connect sink landing every topic. Late: the table JVM and the sink's first
 * commits cost CPU that the apps' and the job's start need more.
 */
final class LakeStep implements StartStep {

    @Override
    public String name() {
        return "lake";
    }

    /** The worker keeps its connectors in its config topic: one registered by an earlier run would resume, so it goes. */
    @Override
    public Optional<String> skip(StartContext c) {
        if (c.options.runs(LaunchOptions.Part.LAKE)) {
            return Optional.empty();
        }
        boolean removed = c.stack.platform.stopLake();
        return Optional.of("Not starting the lake (--without lake): nothing lands in Iceberg"
                + (removed ? " (the connector an earlier run registered was removed)." : "."));
    }

    @Override
    public String announce(StartContext c) {
        return "Starting the lake (Iceberg tables, Iceberg Kafka Connect sink) ...";
    }

    @Override
    public void start(StartContext c, Consumer<String> out) {
        var platform = c.stack.platform;
        platform.lake();
        out.accept(String.format("  connector %s landing %d topics in Iceberg tables streamhouse.* (catalog lake, warehouse %s), commits every %d ms (%.1f s)",
                LakeConnector.NAME, LakeNames.landed().size(), platform.lakeWarehouse(), LakeConnector.COMMIT_INTERVAL_MS, c.seconds()));
    }
}
