package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Every custom resource under manifests/ against its CRD's openAPIV3Schema (the vendored CRDs: crds/README.md). */
class CustomResourcesMatchTheirCrdsTest {
    /** Kubernetes' own kinds, checked by {@link BuiltInResourcesTest} instead. */
    static final Set<String> BUILT_IN_API_VERSIONS = Set.of("v1", "apps/v1", "batch/v1");

    private static CrdSchemas crds;

    @BeforeAll
    static void loadCrds() {
        crds = CrdSchemas.load();
    }

    @Test
    void everyCustomResourceIsValidAgainstItsCrdSchema() {
        List<String> violations = new ArrayList<>();
        int checked = 0;
        for (Manifests.Doc doc : Manifests.all()) {
            if (BUILT_IN_API_VERSIONS.contains(doc.apiVersion())) {
                continue;
            }
            checked++;
            crds.violations(doc.node()).forEach(v -> violations.add(doc.where() + ": " + v));
        }
        assertThat(checked).as("custom resources checked").isGreaterThan(40);
        assertThat(violations).as("custom resources that their CRD refuses").isEmpty();
    }

    @Test
    void theManifestsHoldEveryKindTheStackNeeds() {
        Set<String> kinds = Manifests.all().stream().map(d -> d.apiVersion() + " " + d.kind()).collect(Collectors.toSet());
        assertThat(kinds).contains("kafka.strimzi.io/v1 Kafka", "kafka.strimzi.io/v1 KafkaNodePool",
                "kafka.strimzi.io/v1 KafkaTopic", "kafka.strimzi.io/v1 KafkaUser", "kafka.strimzi.io/v1 KafkaConnect",
                "kafka.strimzi.io/v1 KafkaConnector", "flink.apache.org/v1beta1 FlinkDeployment",
                "apps/v1 StatefulSet", "apps/v1 Deployment", "v1 Service");
        assertThat(crds.kinds()).as("vendored CRDs").hasSize(7);
    }

    @Test
    void theValidatorRefusesAnUnknownFieldAWrongValueAndAMissingRequiredField() {
        ObjectNode kafka = Manifests.one("Kafka", ManifestGenerator.CLUSTER).node().deepCopy();
        ((ObjectNode) kafka.path("spec").path("kafka")).put("listenrs", "typo");
        assertThat(crds.violations(kafka)).anyMatch(v -> v.contains("listenrs"));

        ObjectNode wrongEnum = Manifests.one("Kafka", ManifestGenerator.CLUSTER).node().deepCopy();
        ((ObjectNode) wrongEnum.path("spec").path("kafka").path("listeners").get(0)).put("type", "internl");
        assertThat(crds.violations(wrongEnum)).anyMatch(v -> v.contains("/spec/kafka/listeners/0/type"));

        ObjectNode missing = Manifests.one("KafkaConnect", "streamhouse-connect").node().deepCopy();
        ((ObjectNode) missing.path("spec")).remove("groupId");
        assertThat(crds.violations(missing)).anyMatch(v -> v.contains("groupId"));

        ObjectNode wrongType = Manifests.one("FlinkDeployment", "streamhouse-cep").node().deepCopy();
        ((ObjectNode) wrongType.path("spec").path("job")).put("parallelism", "two");
        assertThat(crds.violations(wrongType)).anyMatch(v -> v.contains("parallelism"));

        ObjectNode aclTypo = Manifests.one("KafkaUser", "ingest").node().deepCopy();
        ArrayNode ops = (ArrayNode) aclTypo.path("spec").path("authorization").path("acls").get(0).path("operations");
        ops.set(0, ops.textNode("WRITE"));
        assertThat(crds.violations(aclTypo)).anyMatch(v -> v.contains("/operations/0"));
    }

    @Test
    void freeFormSectionsStayOpenAndNullableAndIntOrStringAreHonoured() {
        // spec.config of a Kafka or a KafkaConnector is free-form in the CRD (x-kubernetes-preserve-unknown-fields).
        ObjectNode connector = Manifests.one("KafkaConnector", "lake").node().deepCopy();
        ((ObjectNode) connector.path("spec").path("config")).put("any.key.at.all", "x");
        assertThat(crds.violations(connector)).isEmpty();
        JsonNode limits = crds.schemaOf("kafka.strimzi.io/v1", "KafkaNodePool").orElseThrow()
                .path("properties").path("spec").path("properties").path("resources").path("properties").path("limits")
                .path("additionalProperties");
        assertThat(limits.path("anyOf")).as("int-or-string quantities").hasSize(2);
        assertThat(crds.celRules()).as("CEL rules seen (not evaluated)").isPositive();
    }
}
