package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings.Kind;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the job is made of, read from its graph (nothing runs): every pattern on the CEP library as stamp, repeats, CEP
 * and reconcile operators with their uids, and no operator of the removed matcher; {@code --engine matcher} refused
 * with what to do instead; and which state backend the job runs on.
 */
class CepJobOperatorsTest {

    @Test
    void aBoundedRunTakesNoPartitionForQuietAndDoesNotAlign() {
        CepJobConfig live = CepOptions.parse(new String[0], Map.of()).jobConfig();
        CepJobConfig bounded = CepOptions.parse(new String[]{"--stop-at", "payments.transactions.requested:0=10"}, Map.of())
                .jobConfig();

        assertThat(live.aligned()).isTrue();
        assertThat(live.idleness()).isEqualTo(java.time.Duration.ofSeconds(10));
        assertThat(bounded.aligned()).isFalse();
        assertThat(bounded.idleness()).isGreaterThan(java.time.Duration.ofDays(365));
        assertThat(bounded.maxOutOfOrderness()).isEqualTo(live.maxOutOfOrderness());
    }

    @Test
    void theLibraryIsTheOnlyEngineAndTheRemovedMatcherIsRefusedWithWhatToDo() {
        assertThat(CepOptions.parse(new String[]{"--engine", "cep"}, Map.of()).jobConfig())
                .isEqualTo(CepOptions.parse(new String[0], Map.of()).jobConfig());
        assertThatThrownBy(() -> CepOptions.parse(new String[]{"--engine", "matcher"}, Map.of()))
                .hasMessageContaining("--engine matcher was removed").hasMessageContaining("--allow-non-restored-state");
        assertThatThrownBy(() -> CepOptions.parse(new String[0], Map.of("STREAMHOUSE_CEP_ENGINE", "matcher")))
                .hasMessageContaining("--engine matcher was removed");
        assertThatThrownBy(() -> CepOptions.parse(new String[]{"--engine", "nfa"}, Map.of()))
                .hasMessageContaining("--engine must be cep");
    }

    @Test
    void stateIsOnTheHeapByDefaultAndInRocksDbByOption() {
        assertThat(CepMain.configuration(CepOptions.parse(new String[0], Map.of())).get(StateBackendOptions.STATE_BACKEND))
                .isEqualTo("hashmap");
        assertThat(CepMain.configuration(CepOptions.parse(new String[]{"--state-backend", "rocksdb"}, Map.of()))
                .get(StateBackendOptions.STATE_BACKEND)).isEqualTo("rocksdb");
        assertThat(CepOptions.parse(new String[0], Map.of("STREAMHOUSE_CEP_STATE_BACKEND", "RocksDB")).stateBackend())
                .isEqualTo(CepOptions.StateBackend.ROCKSDB);
        assertThatThrownBy(() -> CepOptions.parse(new String[]{"--state-backend", "forst"}, Map.of()))
                .hasMessageContaining("--state-backend must be hashmap or rocksdb, was 'forst'");
    }

    @Test
    void everyPatternRunsOnTheLibraryWithItsOperatorsUids() {
        Set<String> uids = uids();
        for (Kind kind : Kind.values()) {
            String id = kind.ruleId();
            assertThat(uids).contains("facts-" + id, "stamp-" + id, "repeats-" + id, "cep-" + id, "late-facts-" + id,
                    "sink-late-facts-" + id, "cep-alerts-" + id, "cep-late-" + id, "reconcile-" + id)
                    .as("the removed matcher's operator").doesNotContain("match-" + id);
            if (kind == Kind.PARCEL_SLA) {
                assertThat(uids).as("the deadline step and the never-delivered operator")
                        .contains("deadline-" + id, "cep-" + id + "-deadline");
            } else {
                assertThat(uids).doesNotContain("deadline-" + id, "cep-" + id + "-deadline");
            }
        }
    }

    private static Set<String> uids() {
        BoundedRun run = CepJobScoringTest.inputs(Generator.generate(GeneratorConfig.defaults(1, 10)));
        try {
            Configuration conf = new Configuration();
            conf.set(PipelineOptions.GENERIC_TYPES, false);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            CepJob.build(env, run.sources(), run.sinks(), CepJobConfig.defaults(), run.registry());
            return env.getStreamGraph().getStreamNodes().stream().map(StreamNode::getTransformationUID)
                    .filter(java.util.Objects::nonNull).collect(Collectors.toSet());
        } finally {
            run.forget();
        }
    }
}
