package io.streamhouse.platform;

import io.streamhouse.platform.junit.WithStreamhousePlatform;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ExternalPostgres} accepts exactly the servers with logical decoding. The machine's own PostgreSQL is only
 * read, never reconfigured: the expectation follows its current {@code wal_level}. The shared platform's PostgreSQL
 * supplies the accepting case whatever the local server's setting is.
 */
@WithStreamhousePlatform
class ExternalPostgresIT {

    /** The machine's PostgreSQL (override with STREAMHOUSE_TEST_PG_URL). */
    private static final String LOCAL_URL = System.getenv().getOrDefault("STREAMHOUSE_TEST_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    @Test
    void theLocalServerIsAcceptedExactlyWhenItsWalLevelIsLogical() throws Exception {
        String walLevel;
        try (Connection c = DriverManager.getConnection(LOCAL_URL); Statement s = c.createStatement()) {
            walLevel = EmbeddedPostgresIT.single(s, "SHOW wal_level");
        }
        if (walLevel.equals("logical")) {
            assertThat(ExternalPostgres.connect(LOCAL_URL, null, null).user()).isEqualTo("postgres");
        } else {
            assertThatThrownBy(() -> ExternalPostgres.connect(LOCAL_URL, null, null))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("wal_level is '" + walLevel + "' but must be 'logical'")
                    .hasMessageContaining("ALTER SYSTEM SET wal_level = logical")
                    .hasMessageContaining("RESTART");
        }
    }

    @Test
    void aServerWithLogicalDecodingIsAccepted(EmbeddedPlatform platform) {
        PostgresServer embedded = platform.postgres();
        ExternalPostgres external = ExternalPostgres.connect(embedded.jdbcUrl(), embedded.user(), embedded.password());
        assertThat(external.serverVersion()).isNotBlank();
        assertThat(external.jdbcUrl()).isEqualTo(embedded.jdbcUrl());
        external.close(); // must not stop a server it does not own
        assertThat(platform.processes()).allMatch(ProcessHandle::isAlive);
    }

    @Test
    void anUnreachableServerFailsWithTheUrlButNotThePassword() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort + "/x?user=u&password=secret&connectTimeout=5";
        assertThatThrownBy(() -> ExternalPostgres.connect(url, null, null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("127.0.0.1:" + closedPort)
                .hasMessageNotContaining("secret");
    }
}
