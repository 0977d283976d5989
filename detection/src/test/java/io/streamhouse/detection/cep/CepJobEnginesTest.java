package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
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
 * Which engine matches which pattern, read from the job's graph (nothing runs): the CEP library by default (and with
 * {@code --engine cep}), each pattern as stamp and CEP operators with their uids; the matcher with
 * {@code --engine matcher}. And which state backend the job runs on.
 */
class CepJobEnginesTest {

    @Test
    void theLibraryIsTheDefaultAndTheMatcherIsChosenByOptionOrEnvironment() {
        assertThat(CepOptions.parse(new String[0], Map.of()).jobConfig().engine()).isEqualTo(CepJobConfig.Engine.CEP);
        assertThat(CepJobConfig.defaults().engine()).isEqualTo(CepJobConfig.Engine.CEP);
        assertThat(CepOptions.parse(new String[]{"--engine", "matcher"}, Map.of()).jobConfig().engine())
                .isEqualTo(CepJobConfig.Engine.MATCHER);
        assertThat(CepOptions.parse(new String[0], Map.of("STREAMHOUSE_CEP_ENGINE", "matcher")).jobConfig().engine())
                .isEqualTo(CepJobConfig.Engine.MATCHER);
        assertThatThrownBy(() -> CepOptions.parse(new String[]{"--engine", "nfa"}, Map.of()))
                .hasMessageContaining("--engine must be matcher or cep");
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

    /** What this slice of issue #21 moved to the library. */
    private static final Set<Kind> ON_LIBRARY = Set.of(Kind.values());

    @Test
    void withEngineCepTheLibraryCarriesItsPatternsAndTheMatcherTheOthers() {
        Set<String> uids = uids(CepJobConfig.Engine.CEP);
        for (Kind kind : Kind.values()) {
            String id = kind.ruleId();
            if (ON_LIBRARY.contains(kind)) {
                assertThat(uids).contains("facts-" + id, "stamp-" + id, "repeats-" + id, "cep-" + id, "late-facts-" + id,
                        "sink-late-facts-" + id).doesNotContain("match-" + id);
                if (kind == Kind.PARCEL_SLA) {
                    assertThat(uids).as("the deadline step and the never-delivered operator")
                            .contains("deadline-" + id, "cep-" + id + "-deadline");
                } else {
                    assertThat(uids).doesNotContain("deadline-" + id, "cep-" + id + "-deadline");
                }
            } else {
                assertThat(uids).contains("facts-" + id, "match-" + id).doesNotContain("stamp-" + id, "cep-" + id);
            }
        }
    }

    @Test
    void withTheMatcherEveryPatternIsMatchedByIt() {
        Set<String> uids = uids(CepJobConfig.Engine.MATCHER);
        for (Kind kind : PatternSettings.Kind.values()) {
            assertThat(uids).contains("match-" + kind.ruleId()).doesNotContain("cep-" + kind.ruleId());
        }
    }

    private static Set<String> uids(CepJobConfig.Engine engine) {
        BoundedRun run = CepJobScoringTest.inputs(Generator.generate(GeneratorConfig.defaults(1, 10)));
        try {
            Configuration conf = new Configuration();
            conf.set(PipelineOptions.GENERIC_TYPES, false);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            CepJob.build(env, run.sources(), run.sinks(), CepJobConfig.defaults().withEngine(engine), run.registry());
            return env.getStreamGraph().getStreamNodes().stream().map(StreamNode::getTransformationUID)
                    .filter(java.util.Objects::nonNull).collect(Collectors.toSet());
        } finally {
            run.forget();
        }
    }
}
