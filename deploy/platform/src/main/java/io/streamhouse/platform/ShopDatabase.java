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
     * Drops the CDC connector's replication slot and publication if they exist (stop the connector first: an active
     * slot cannot be dropped). Returns whether a slot was dropped.
     */
    public static boolean dropCapture(PostgresServer server, io.streamhouse.connect.CdcConnector.Source source) throws java.sql.SQLException {
        try (java.sql.Connection c = server.connect()) {
            boolean dropped = false;
            try (java.sql.PreparedStatement s = c.prepareStatement(
                    "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ? AND NOT active")) {
                s.setString(1, source.slotName());
                try (java.sql.ResultSet rs = s.executeQuery()) {
                    dropped = rs.next();
                }
            }
            try (java.sql.Statement s = c.createStatement()) {
                // Validated by CdcConnector.Source: a plain identifier, safe to inline.
                s.execute("DROP PUBLICATION IF EXISTS " + source.publicationName());
            }
            return dropped;
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
