package io.streamhouse.platform;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * The shop's operational schema ({@value #SCHEMA}): customers, addresses, payment methods, orders and order lines,
 * the tables an order service writes and change data capture reads. Versioned Flyway migrations under
 * {@code db/shop} on the classpath; {@link #migrate} is idempotent (applied versions are recorded in
 * {@code shop.flyway_schema_history}) and refuses to run over an edited, already applied migration.
 */
public final class ShopDatabase {

    public static final String SCHEMA = "shop";
    static final String LOCATION = "classpath:db/shop";

    private ShopDatabase() {
    }

    /**
     * Drops the CDC connector's replication slot and publication if they exist. Stop the connector first: the slot
     * is dropped once PostgreSQL has let go of it (its walsender ends shortly after the connection closes; waited for
     * up to {@code 10 s}). Returns whether a slot was dropped.
     */
    public static boolean dropCapture(PostgresServer server, io.streamhouse.connect.CdcConnector.Source source) throws java.sql.SQLException {
        try (java.sql.Connection c = server.connect()) {
            boolean dropped = dropSlotWhenInactive(c, source.slotName(), java.time.Duration.ofSeconds(10));
            try (java.sql.Statement s = c.createStatement()) {
                // Validated by CdcConnector.Source: a plain identifier, safe to inline.
                s.execute("DROP PUBLICATION IF EXISTS " + source.publicationName());
            }
            return dropped;
        }
    }

    private static boolean dropSlotWhenInactive(java.sql.Connection c, String slot, java.time.Duration wait) throws java.sql.SQLException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Boolean active = null;
            try (java.sql.PreparedStatement s = c.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
                s.setString(1, slot);
                try (java.sql.ResultSet rs = s.executeQuery()) {
                    if (rs.next()) {
                        active = rs.getBoolean(1);
                    }
                }
            }
            if (active == null) {
                return false;
            }
            if (!active) {
                try (java.sql.PreparedStatement s = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
                    s.setString(1, slot);
                    s.execute();
                }
                return true;
            }
            if (System.nanoTime() > deadline) {
                throw new java.sql.SQLException("replication slot " + slot + " is still in use after " + wait.toSeconds()
                        + " s: is a connector still reading it? Stop it first");
            }
            try {
                java.util.concurrent.TimeUnit.MILLISECONDS.sleep(100); // bounded by the deadline above
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.sql.SQLException("interrupted while waiting for slot " + slot, e);
            }
        }
    }

    /** Applies every pending migration to the database of {@code server}; returns how many were applied. */
    public static int migrate(PostgresServer server) {
        Flyway flyway = Flyway.configure()
                .dataSource(server.jdbcUrl(), server.user(), server.password())
                .schemas(SCHEMA)
                .defaultSchema(SCHEMA)
                .createSchemas(true)
                .locations(LOCATION)
                .load();
        MigrateResult result = flyway.migrate();
        return result.migrationsExecuted;
    }
}
