package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.detection.cep.CepMain;
import io.streamhouse.detection.cep.CepOptions;
import io.streamhouse.platform.KafkaAcls;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The FlinkDeployment of the CEP job against the job's own code: CepMain, CepOptions, Flink's configuration keys. */
class FlinkManifestTest {
    static final Manifests.Doc CEP = Manifests.one("FlinkDeployment", "streamhouse-cep");

    @Test
    void theJobIsTheShadedJarsCepMainWithArgumentsCepOptionsAccepts() {
        JsonNode job = CEP.node().path("spec").path("job");
        assertThat(job.path("entryClass").asText()).isEqualTo(CepMain.class.getName());
        assertThat(job.path("jarURI").asText())
                .isEqualTo("local:///opt/flink/usrlib/streamhouse-flink-job-" + Pinned.version("project.version") + "-shaded.jar");
        List<String> args = new ArrayList<>();
        job.path("args").forEach(a -> args.add(a.asText()));
        CepOptions options = CepOptions.parse(args.toArray(String[]::new), Map.of());
        assertThat(options.local()).isFalse();
        assertThat(options.parallelism()).isEqualTo(2).isEqualTo(job.path("parallelism").asInt());
        assertThat(options.groupId()).isEqualTo(KafkaAcls.CEP_GROUP);
        assertThat(options.checkpointDir()).hasValueSatisfying(d -> assertThat(d).startsWith("s3://"));
        assertThat(options.stateBackend().flinkName())
                .isEqualTo(CEP.node().path("spec").path("flinkConfiguration").path(StateBackendOptions.STATE_BACKEND.key()).asText());
    }

    @Test
    void checkpointsAndSavepointsAreWhereCepMainPutsThemOnS3() {
        JsonNode conf = CEP.node().path("spec").path("flinkConfiguration");
        List<String> args = new ArrayList<>();
        CEP.node().path("spec").path("job").path("args").forEach(a -> args.add(a.asText()));
        String dir = CepOptions.parse(args.toArray(String[]::new), Map.of()).checkpointDir().orElseThrow();
        assertThat(conf.path(CheckpointingOptions.CHECKPOINTS_DIRECTORY.key()).asText()).isEqualTo(dir);
        assertThat(conf.path(CheckpointingOptions.SAVEPOINT_DIRECTORY.key()).asText()).isEqualTo(dir + "/savepoints");
        assertThat(conf.path(HighAvailabilityOptions.HA_STORAGE_PATH.key()).asText()).startsWith("s3://");
        assertThat(CEP.node().path("spec").path("flinkVersion").asText())
                .isEqualTo("v" + Pinned.version("flink.version").replaceAll("^(\\d+)\\.(\\d+).*", "$1_$2"));
        assertThat(CEP.node().path("spec").path("taskManager").path("replicas").asInt()
                * conf.path(TaskManagerOptions.NUM_TASK_SLOTS.key()).asInt()).as("slots for parallelism 2").isGreaterThanOrEqualTo(2);
        JsonNode env = CEP.node().path("spec").path("podTemplate").path("spec").path("containers").get(0).path("env");
        String plugins = "";
        for (JsonNode e : env) {
            if (e.path("name").asText().equals("ENABLE_BUILT_IN_PLUGINS")) {
                plugins = e.path("value").asText();
            }
        }
        assertThat(plugins.split(";")).contains("flink-s3-fs-presto-" + Pinned.version("flink.version") + ".jar");
    }

    @Test
    void everyFlinkConfigurationKeyIsOneOfFlinksOrTheS3Plugins() throws IllegalAccessException {
        Set<String> known = new HashSet<>();
        for (Class<?> options : List.of(CheckpointingOptions.class, StateBackendOptions.class, HighAvailabilityOptions.class,
                TaskManagerOptions.class, org.apache.flink.configuration.JobManagerOptions.class,
                org.apache.flink.configuration.RestartStrategyOptions.class, org.apache.flink.configuration.CoreOptions.class,
                org.apache.flink.configuration.PipelineOptions.class, org.apache.flink.configuration.StateRecoveryOptions.class)) {
            for (Field f : options.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && ConfigOption.class.isAssignableFrom(f.getType())) {
                    ConfigOption<?> option = (ConfigOption<?>) f.get(null);
                    known.add(option.key());
                    option.fallbackKeys().forEach(k -> known.add(k.getKey()));
                }
            }
        }
        List<String> unknown = new ArrayList<>();
        CEP.node().path("spec").path("flinkConfiguration").fieldNames().forEachRemaining(key -> {
            // The S3 file systems' keys (s3.endpoint, s3.path.style.access) are read by the plugin, not by flink-core.
            if (!known.contains(key) && !key.startsWith("s3.")) {
                unknown.add(key);
            }
        });
        assertThat(unknown).as("spec.flinkConfiguration keys that no Flink ConfigOption has").isEmpty();
    }

    @Test
    void theJobLogsInAsTheCepUser() {
        JsonNode pod = CEP.node().path("spec").path("podTemplate").path("spec");
        JsonNode secret = pod.path("volumes").get(0).path("secret");
        assertThat(secret.path("secretName").asText()).isEqualTo(KafkaPrincipal.CEP.userName());
        assertThat(secret.path("items").get(0).path("path").asText()).isEqualTo(KafkaPrincipal.CEP.userName() + ".password");
        assertThat(pod.path("containers").get(0).path("name").asText()).as("the operator's main container").isEqualTo("flink-main-container");
    }
}
