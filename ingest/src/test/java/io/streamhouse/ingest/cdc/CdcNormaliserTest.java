package io.streamhouse.ingest.cdc;

import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class CdcNormaliserTest {

    @Test
    void exactlyOnceAndTheGivenStateDirAreAlwaysSet() {
        var p = CdcNormaliser.properties(new CdcNormaliser.Settings("127.0.0.1:9092", "http://127.0.0.1:8085",
                Path.of("target/x"), null, Duration.ofMillis(20)));
        assertThat(p.getProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
        assertThat(p.getProperty(StreamsConfig.APPLICATION_ID_CONFIG)).isEqualTo(CdcNormaliser.DEFAULT_APPLICATION_ID);
        assertThat(p.getProperty(StreamsConfig.STATE_DIR_CONFIG)).isEqualTo(Path.of("target/x").toAbsolutePath().toString());
        assertThat(p.getProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo("20");
        assertThat(p.getProperty(StreamsConfig.REPLICATION_FACTOR_CONFIG)).as("the broker's default: 1 on one broker, 3 on a cluster")
                .isEqualTo("-1");
        // Bootstrap and security from the shared KafkaClientSettings (PLAINTEXT unless configured).
        assertThat(p.getProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG)).isEqualTo("127.0.0.1:9092");
        assertThat(p.getProperty(StreamsConfig.SECURITY_PROTOCOL_CONFIG)).isEqualTo("PLAINTEXT");
    }
}
