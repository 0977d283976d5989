package io.streamhouse.platform;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * A PostgreSQL server that Streamhouse may use for its tables and for change data capture.
 *
 * <p>Guarantee of every implementation: at the time it was handed out, the server had {@code wal_level=logical} and
 * room for replication slots, so Debezium's {@code pgoutput} capture can work. {@link #jdbcUrl()} names the
 * database Streamhouse should use.
 */
public interface PostgresServer extends AutoCloseable {

    String jdbcUrl();

    String user();

    /** Password for {@link #user()}; empty when the server trusts local connections. */
    String password();

    /** A new connection as {@link #user()}; the caller closes it. */
    default Connection connect() throws SQLException {
        Properties properties = new Properties();
        if (user() != null) {
            properties.setProperty("user", user());
        }
        if (password() != null && !password().isEmpty()) {
            properties.setProperty("password", password());
        }
        return DriverManager.getConnection(jdbcUrl(), properties);
    }

    /** Stops the server if this object started it; otherwise does nothing. Idempotent. */
    @Override
    void close();
}
