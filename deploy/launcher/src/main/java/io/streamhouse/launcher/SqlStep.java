package io.streamhouse.launcher;

import io.streamhouse.lakequery.LakeQueryOptions;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The lake's query service (Flink batch SQL over Iceberg and the log), on the port fixed before the start so the api
 * knows it ({@code POST /v1/sql} is a 503 until it is up).
 */
final class SqlStep implements StartStep {

    @Override
    public String name() {
        return "sql";
    }

    @Override
    public java.util.Set<String> needs() {
        return java.util.Set.of("platform");
    }

    @Override
    public Optional<String> skip(StartContext c) {
        return c.sqlUrl != null ? Optional.empty()
                : Optional.of("Not starting the lake's query service (--without sql): POST /v1/sql answers 503.");
    }

    @Override
    public String announce(StartContext c) {
        return "Starting the lake's query service (Flink batch SQL over Iceberg and the log) ...";
    }

    @Override
    public void start(StartContext c, Consumer<String> out) throws Exception {
        RunningStack stack = c.stack;
        // The catalog the sink writes, from the one place that builds it.
        Map<String, String> catalog = stack.platform.lakeCatalog();
        var lake = new LakeQueryOptions.Lake(catalog.get("uri"), catalog.get("jdbc.user"), catalog.get("jdbc.password"),
                catalog.get("warehouse"));
        boolean lakeRuns = c.options.runs(LaunchOptions.Part.LAKE);
        var m = c.options.maintenance();
        stack.sql = SqlProcess.start(new LakeQueryOptions(c.data.resolve("lake-query"), stack.platform.bootstrapServers(),
                stack.platform.schemaRegistryUrl().toString(), Optional.of(lake), c.sqlUrl.getPort(), "768m", 2,
                m.withEnabled(m.enabled() && lakeRuns)), c.logs(), stack.supervisor);
        Duration took = stack.sql.startDuration();
        out.accept(String.format("  query service pid %d ready in %.1f s", stack.sql.pid(), took.toMillis() / 1000.0));
        out.accept(m.enabled() && lakeRuns
                ? "  lake maintenance every " + m.interval() + ": compaction to " + m.targetFileSizeBytes() / (1024 * 1024)
                + " MiB files, snapshots older than " + m.snapshotMaxAge() + " expired (newest " + m.retainLast()
                + " kept), orphan files older than " + m.orphanMinAge() + " deleted (./streamhouse status shows the last pass)"
                : "  lake maintenance off" + (m.enabled() ? " (--without lake)" : " (--maintenance off)"));
    }
}
