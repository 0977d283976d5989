package io.streamhouse.launcher;

import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * PostgreSQL (embedded, or the server {@code STREAMHOUSE_PG_URL} names) with the shop's schema: the database CDC
 * captures and the lake's catalog. It starts beside the apps and the CEP job, which do not use it; CDC, the lake and the
 * query service wait for it inside the platform if they get there first. A stack without all three does not start it.
 */
final class PostgresStep implements StartStep {

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public Set<String> needs() {
        return Set.of("platform");
    }

    @Override
    public Optional<String> skip(StartContext c) {
        boolean used = c.options.runs(LaunchOptions.Part.CDC) || c.options.runs(LaunchOptions.Part.LAKE)
                || c.options.runs(LaunchOptions.Part.SQL);
        return used ? Optional.empty()
                : Optional.of("Not starting PostgreSQL: nothing in this stack uses it (cdc, lake and sql are left out).");
    }

    @Override
    public String announce(StartContext c) {
        return "Starting PostgreSQL (the shop database, the lake's catalog) ...";
    }

    @Override
    public void start(StartContext c, Consumer<String> out) {
        out.accept(String.format("  PostgreSQL %s (%.1f s)", c.stack.platform.postgres().jdbcUrl(), c.seconds()));
    }
}
