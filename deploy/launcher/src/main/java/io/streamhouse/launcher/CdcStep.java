package io.streamhouse.launcher;

import java.util.function.Consumer;
import java.util.Optional;

/** The Kafka Connect worker with the Debezium PostgreSQL connector capturing schema {@code shop}. */
final class CdcStep implements StartStep {

    @Override
    public String name() {
        return "cdc";
    }

    @Override
    public java.util.Set<String> needs() {
        return java.util.Set.of("platform");
    }

    @Override
    public Optional<String> skip(StartContext c) {
        return c.options.runs(LaunchOptions.Part.CDC) ? Optional.empty()
                : Optional.of("Not starting change data capture (--without cdc): nothing captures the shop database.");
    }

    @Override
    public String announce(StartContext c) {
        return "Starting change data capture (Kafka Connect worker, Debezium PostgreSQL connector) ...";
    }

    @Override
    public void start(StartContext c, Consumer<String> out) {
        var connect = c.stack.platform.cdc();
        out.accept(String.format("  Kafka Connect %s, connector %s capturing schema shop into shop.cdc.changes (%.1f s)",
                connect.restUrl(), io.streamhouse.connect.CdcConnector.DEFAULT_NAME, c.seconds()));
        LakeStep.moreConnectWorkers(c, out);
    }
}
