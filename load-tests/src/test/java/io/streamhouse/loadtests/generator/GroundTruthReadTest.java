package io.streamhouse.loadtests.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ground truth files read back as written: what lets a detector be scored after the run, in another process. */
class GroundTruthReadTest {

    @Test
    void theAnomaliesAndTheConfigurationReadBackAsWritten(@TempDir Path dir) throws Exception {
        GeneratorConfig config = GeneratorConfig.defaults(11, 4_000).withStart(Instant.parse("2026-12-04T18:01:02Z"))
                .withLateRatio(0.2).withLatenessBound(Duration.ofSeconds(20)).withRates(new AnomalyRates(2, 1.5, 1, 3, 0.5));
        Generation g = Generator.generate(config);
        GroundTruthFiles.writeAll(g, dir);

        assertThat(GroundTruthFiles.readAnomalies(dir)).isEqualTo(g.anomalies()).isNotEmpty();
        assertThat(GroundTruthFiles.readConfig(dir)).isEqualTo(config);
        assertThat(Generator.generate(GroundTruthFiles.readConfig(dir)).anomalies()).isEqualTo(g.anomalies());
    }

    @Test
    void aBrokenLineIsNamed(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("ground-truth.jsonl"), "{\"type\":\"CARD_TESTING\"}\n");

        assertThatThrownBy(() -> GroundTruthFiles.readAnomalies(dir)).hasMessageContaining("ground-truth.jsonl line 1");
    }
}
