package io.streamhouse.launcher;

import io.streamhouse.connect.LakeConnector;
import io.streamhouse.domain.topic.LakeNames;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * The Iceberg tables and the Iceberg Kafka Connect sink landing every topic, in the Connect worker CDC runs in (the
 * platform starts the worker for whichever comes first and does one at a time).
 */
final class LakeStep implements StartStep {

    @Override
    public String name() {
        return "lake";
    }

    @Override
    public java.util.Set<String> needs() {
        return java.util.Set.of("platform");
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
        moreConnectWorkers(c, out);
    }

    /**
     * {@code --connect-workers N}: the other workers of the Connect group, once a connector runs in the first (CDC's
     * step and the lake's both ask; the second finds them started). They take a share of the tasks.
     */
    static void moreConnectWorkers(StartContext c, Consumer<String> out) {
        int count = c.options.plan().connectWorkers();
        if (count < 2) {
            return;
        }
        synchronized (c.stack) {
            var workers = c.stack.platform.connectWorkers(count);
            out.accept("  Kafka Connect group of " + count + " workers: " + workers.stream()
                    .map(w -> w.supervised().spec().name() + " " + w.restUrl()).collect(java.util.stream.Collectors.joining(", ")));
        }
    }
}
