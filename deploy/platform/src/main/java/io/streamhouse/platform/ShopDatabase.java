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
    /** The captured tables, qualified, as Debezium's {@code table.include.list} names them. */
    public static final java.util.List<String> CAPTURED_TABLES = java.util.List.of(
            "shop.customers", "shop.addresses", "shop.payment_methods", "shop.orders", "shop.order_lines");
    static final String LOCATION = "classpath:db/shop";

    private ShopDatabase() {
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
