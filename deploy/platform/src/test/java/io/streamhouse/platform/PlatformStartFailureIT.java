package io.streamhouse.platform;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** A start that fails half-way stops what it had already started. */
class PlatformStartFailureIT {

    @Test
    void aFailingPostgresStepStopsTheBrokerStartedBeforeIt() throws Exception {
        PlatformOptions options = PlatformOptions.forTests()
                .withDataDir(TestDirs.fresh("start-failure"))
                .withPostgresMode(PlatformOptions.PostgresMode.EXTERNAL);
        String kafkaDir = options.dataDir().resolve("kafka").toString();

        // No STREAMHOUSE_PG_URL in this environment: the PostgreSQL step fails after the broker is up.
        assertThatThrownBy(() -> EmbeddedPlatform.start(options, Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(ExternalPostgres.URL_ENV);

        assertThat(options.dataDir().resolve("kafka").resolve("broker.log")).content()
                .as("the broker had started").contains("ready at");
        await().atMost(Duration.ofSeconds(20)).until(() -> ProcessHandle.current().children()
                .noneMatch(p -> p.info().commandLine().orElse("").contains(kafkaDir)));
    }
}
