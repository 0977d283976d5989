package io.streamhouse.platform;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ExternalPostgresTest {

    @Test
    void onlyLogicalWalWithSlotsAndSendersPasses() {
        assertThat(ExternalPostgres.checkLogicalDecoding("logical", 10, 10)).isNull();
        assertThat(ExternalPostgres.checkLogicalDecoding("replica", 10, 10)).contains("wal_level is 'replica'");
        assertThat(ExternalPostgres.checkLogicalDecoding("minimal", 10, 10)).contains("'minimal'");
        assertThat(ExternalPostgres.checkLogicalDecoding("logical", 0, 10)).contains("max_replication_slots is 0");
        assertThat(ExternalPostgres.checkLogicalDecoding("logical", 10, 0)).contains("max_wal_senders is 0");
    }

    @Test
    void theMessageSaysHowToFixTheServerAndHidesThePassword() {
        String message = ExternalPostgres.notReadyMessage("jdbc:postgresql://db:5432/x?user=a&password=hunter2",
                "wal_level is 'replica' but must be 'logical'");
        assertThat(message).contains("ALTER SYSTEM SET wal_level = logical", "RESTART", ExternalPostgres.URL_ENV,
                "password=***").doesNotContain("hunter2");
    }

    @Test
    void noUrlInTheEnvironmentMeansNoExternalServer() {
        assertThat(ExternalPostgres.fromEnvironment(Map.of())).isEmpty();
        assertThat(ExternalPostgres.fromEnvironment(Map.of(ExternalPostgres.URL_ENV, "  "))).isEmpty();
    }
}
