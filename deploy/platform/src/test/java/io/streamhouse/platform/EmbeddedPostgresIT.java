package io.streamhouse.platform;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** zonky PostgreSQL with logical decoding, and the lifecycle {@link ZonkyPostgres} promises. */
class EmbeddedPostgresIT {

    @Test
    void logicalDecodingWorksAndCloseStopsThePostmaster() throws Exception {
        Path dir = TestDirs.fresh("zonky");
        ZonkyPostgres postgres = ZonkyPostgres.start(new ZonkyPostgres.Settings(
                dir.resolve("postgres"), true, 0, null, dir.resolve("postgres.log"), "streamhouse"));
        ProcessHandle postmaster;
        try (postgres; Connection c = postgres.connect(); Statement s = c.createStatement()) {
            postmaster = ProcessHandle.of(postgres.pid()).orElseThrow();
            assertThat(postmaster.isAlive()).isTrue();
            assertThat(single(s, "SHOW wal_level")).isEqualTo("logical");
            // A system of record: a commit returns once its WAL is flushed, which is also when logical decoding
            // can send it (the library's default is off).
            assertThat(single(s, "SHOW synchronous_commit")).isEqualTo("on");
            assertThat(single(s, "SELECT current_database()")).isEqualTo("streamhouse");
            assertThat(single(s, "SHOW server_version")).startsWith("17.");

            String slot = "streamhouse_it_" + Long.toHexString(System.nanoTime());
            assertThat(single(s, "SELECT slot_name FROM pg_create_logical_replication_slot('" + slot + "', 'pgoutput')"))
                    .isEqualTo(slot);
            assertThat(single(s, "SELECT plugin || '/' || slot_type FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                    .isEqualTo("pgoutput/logical");
            s.execute("SELECT pg_drop_replication_slot('" + slot + "')");
            // An inactive slot would hold WAL forever: make sure it is really gone.
            assertThat(single(s, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'")).isEqualTo("0");
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> !postmaster.isAlive());
        assertThat(Files.exists(dir.resolve("postgres").resolve("postmaster.pid"))).isFalse();
        postgres.close(); // idempotent
    }

    static String single(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).as("a row from %s", sql).isTrue();
            return rs.getString(1);
        }
    }
}
