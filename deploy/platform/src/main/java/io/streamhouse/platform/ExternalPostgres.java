package io.streamhouse.platform;

import org.postgresql.Driver;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * A PostgreSQL server that someone else runs, named by {@value #URL_ENV} (a JDBC URL; user and password either in
 * it or in {@value #USER_ENV} / {@value #PASSWORD_ENV}).
 *
 * <p>Guarantee: an instance exists only for a server that answered {@code SHOW wal_level} with {@code logical} and
 * allows replication slots and WAL senders; otherwise creation fails with a message that says how to fix the server.
 * It does not check that the user may replicate ({@code REPLICATION} attribute): that shows up when a connector
 * creates its slot. {@link #close()} does nothing: this process does not own the server.
 */
public final class ExternalPostgres implements PostgresServer {

    public static final String URL_ENV = "STREAMHOUSE_PG_URL";
    public static final String USER_ENV = "STREAMHOUSE_PG_USER";
    public static final String PASSWORD_ENV = "STREAMHOUSE_PG_PASSWORD";

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String serverVersion;

    private ExternalPostgres(String jdbcUrl, String user, String password, String serverVersion) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.serverVersion = serverVersion;
    }

    /** The server named by the process environment, verified; empty when {@value #URL_ENV} is not set. */
    public static Optional<ExternalPostgres> fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    static Optional<ExternalPostgres> fromEnvironment(Map<String, String> env) {
        String url = env.get(URL_ENV);
        if (url == null || url.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(connect(url.trim(), env.get(USER_ENV), env.get(PASSWORD_ENV)));
    }

    /**
     * Connects to the server and verifies it is ready for logical decoding.
     *
     * @param user     null to use the URL's {@code user} parameter (or the driver's default)
     * @param password null to use the URL's {@code password} parameter, if any
     * @throws IllegalStateException if the server cannot be reached or is not configured for logical decoding
     */
    public static ExternalPostgres connect(String jdbcUrl, String user, String password) {
        Properties fromUrl = Driver.parseURL(jdbcUrl, new Properties());
        if (fromUrl == null) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + redact(jdbcUrl)
                    + " (expected jdbc:postgresql://host:port/database)");
        }
        String effectiveUser = user != null ? user : fromUrl.getProperty("user", System.getProperty("user.name"));
        String effectivePassword = password != null ? password : fromUrl.getProperty("password", "");
        ExternalPostgres server = new ExternalPostgres(jdbcUrl, effectiveUser, effectivePassword, null);
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            String walLevel = show(statement, "wal_level");
            int slots = Integer.parseInt(show(statement, "max_replication_slots"));
            int senders = Integer.parseInt(show(statement, "max_wal_senders"));
            String version = show(statement, "server_version");
            String problem = checkLogicalDecoding(walLevel, slots, senders);
            if (problem != null) {
                throw new IllegalStateException(notReadyMessage(jdbcUrl, problem));
            }
            return new ExternalPostgres(jdbcUrl, effectiveUser, effectivePassword, version);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot use the PostgreSQL server at " + redact(jdbcUrl) + " as "
                    + effectiveUser + ": " + e.getMessage(), e);
        }
    }

    /** Null when the settings allow logical decoding, else what is wrong. */
    static String checkLogicalDecoding(String walLevel, int maxReplicationSlots, int maxWalSenders) {
        if (!"logical".equalsIgnoreCase(walLevel)) {
            return "wal_level is '" + walLevel + "' but must be 'logical'";
        }
        if (maxReplicationSlots < 1) {
            return "max_replication_slots is " + maxReplicationSlots + " but must be at least 1";
        }
        if (maxWalSenders < 1) {
            return "max_wal_senders is " + maxWalSenders + " but must be at least 1";
        }
        return null;
    }

    static String notReadyMessage(String jdbcUrl, String problem) {
        return "The PostgreSQL server at " + redact(jdbcUrl) + " is not ready for change data capture: " + problem
                + ". Streamhouse reads the database's changes through logical decoding (pgoutput)."
                + " Fix: as a superuser run ALTER SYSTEM SET wal_level = logical; (and, if needed,"
                + " ALTER SYSTEM SET max_replication_slots = 10; ALTER SYSTEM SET max_wal_senders = 10;),"
                + " then RESTART the server (e.g. `pg_ctlcluster 15 main restart` or `systemctl restart postgresql`);"
                + " a reload is not enough. Or unset " + URL_ENV + " to let Streamhouse start its own PostgreSQL.";
    }

    /** The URL with any password parameter hidden, for messages and logs. */
    static String redact(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    private static String show(Statement statement, String setting) throws SQLException {
        try (ResultSet rs = statement.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public String jdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public String user() {
        return user;
    }

    @Override
    public String password() {
        return password;
    }

    /** {@code server_version} as reported when this server was verified. */
    public String serverVersion() {
        return serverVersion;
    }

    @Override
    public void close() {
        // Not ours to stop.
    }

    @Override
    public String toString() {
        return "ExternalPostgres[" + redact(jdbcUrl) + ", user=" + user + ", version=" + serverVersion + "]";
    }
}
