package io.streamhouse.detection.cep;

import io.streamhouse.loadtests.generator.AnomalyChecker;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.domain.event.AlertType;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * Checkpoints of the whole job as {@link CepMain#configuration} sets it up (exactly-once checkpoints to a directory), on
 * each state backend it offers: the heap (the default) and RocksDB with its timers in RocksDB, in a MiniCluster. Every source emits a slice of the
 * generated traffic per completed checkpoint, so the job reaches the end of its input only through many completed
 * checkpoints, with state and timers written, read and deleted between them; a failed checkpoint fails the job (no
 * restarts, no tolerated failures).
 *
 * <p>Guards against what broke every checkpoint of this job in the benchmark: Kafka Streams' rocksdbjni ahead of
 * Flink's frocksdbjni on the classpath ({@link RocksDbLibrary}). With the surefire execution's exclusion of
 * rocksdbjni removed, this test fails with {@code streamStateHandle cannot be null}.
 */
class RocksDbCheckpointTest {

    @Test
    void thisClasspathRunsFlinkOnFrocksdb() {
        assertThatCode(RocksDbLibrary::requireFrocksdb).doesNotThrowAnyException();
    }

    @Test
    void anotherRocksDbAheadOfFrocksdbIsRefused() {
        var frocksdb = new RocksDbLibrary.Located(true, "file:/m2/com/ververica/frocksdbjni-8.10.0-ververica-1.0.jar");
        var rocksdbjni = new RocksDbLibrary.Located(true, "file:/m2/org/rocksdb/rocksdbjni-9.7.3.jar");

        assertThat(RocksDbLibrary.problem(frocksdb, frocksdb)).isEmpty();
        assertThat(RocksDbLibrary.problem(RocksDbLibrary.Located.absent(), RocksDbLibrary.Located.absent())).isEmpty();
        assertThat(RocksDbLibrary.problem(rocksdbjni, frocksdb)).get().asString()
                .contains("rocksdbjni-9.7.3.jar").contains("ahead of Flink's frocksdbjni");
        assertThat(RocksDbLibrary.problem(rocksdbjni, RocksDbLibrary.Located.absent())).get().asString()
                .contains("not Flink's frocksdb");
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void theJobCheckpointsItsStateAsConfigured(String backend) throws Exception {
        Generation generation = Generator.generate(GeneratorConfig.defaults(42, 4_000));
        Path checkpoints = Files.createTempDirectory(Path.of("target"), backend + "-chk-");
        Configuration conf = CepMain.configuration(CepOptions.parse(
                new String[]{"--checkpoint-dir", checkpoints.toString(), "--state-backend", backend}, Map.of()));
        assertThat(conf.get(org.apache.flink.configuration.StateBackendOptions.STATE_BACKEND)).isEqualTo(backend);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, 0);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        env.enableCheckpointing(50, CheckpointingMode.EXACTLY_ONCE);

        BoundedRun run = CepJobScoringTest.inputs(generation);
        try {
            CepJob.build(env, run.sources(RateLimiterStrategy.perCheckpoint(250)), run.sinks(),
                    CepJobConfig.defaults().forInMemorySources().withWatermarkPerEvent(true), run.registry());
            env.execute("cep-" + backend + "-checkpoints"); // throws if a checkpoint fails

            AnomalyChecker.Score score = AnomalyChecker.score(generation.anomalies(), CepJobScoringTest.fold(
                    run.alerts().stream().filter(a -> a.getType() != AlertType.MAINTENANCE_DUE).toList()));
            assertThat(score.missed()).as("planted anomalies without an alert").isEmpty();
            assertThat(score.spurious()).isEmpty();
        } finally {
            run.forget();
        }
    }
}
