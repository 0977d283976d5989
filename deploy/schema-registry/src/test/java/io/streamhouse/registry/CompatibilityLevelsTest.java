package io.streamhouse.registry;

import static io.streamhouse.registry.RegistryHttp.schemaBody;
import static io.streamhouse.registry.Schemas.PARCEL_V1;
import static io.streamhouse.registry.Schemas.PARCEL_V2_WITHOUT_DEFAULT;
import static io.streamhouse.registry.Schemas.PARCEL_V2_WITH_DEFAULT;
import static io.streamhouse.registry.Schemas.PARCEL_V3_HUB_REQUIRED;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.registry.RegistryHttp.Answer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What each compatibility level accepts and rejects, as a client registering schemas sees it. */
class CompatibilityLevelsTest {

    private static final String SUBJECT = "parcels-value";

    /** v1 plus a field without default, which an old reader simply skips. */
    private static final String PARCEL_WITHOUT_ID = """
            {"type":"record","name":"Parcel","namespace":"io.streamhouse.test",
             "fields":[{"name":"hub","type":"string","default":"unknown"}]}""";

    private SchemaRegistryServer server;
    private RegistryHttp http;

    @BeforeEach
    void start() {
        server = SchemaRegistryServer.start("127.0.0.1", 0, new InMemorySchemaStore());
        http = new RegistryHttp(server.url());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private void level(String level) {
        assertThat(http.put("/config/" + SUBJECT, "{\"compatibility\":\"" + level + "\"}").status()).isEqualTo(200);
    }

    private Answer register(String schema) {
        return http.post("/subjects/" + SUBJECT + "/versions", schemaBody(schema));
    }

    private static void assertIncompatible(Answer answer, String... mentions) {
        assertThat(answer.status()).as(answer.body()).isEqualTo(409);
        assertThat(answer.errorCode()).isEqualTo(409);
        assertThat(answer.message()).startsWith("Schema being registered is incompatible with an earlier schema")
                .contains(mentions);
    }

    @Test
    void backwardIsTheDefaultAndAllowsAFieldAddedWithADefault() {
        register(PARCEL_V1);

        assertThat(register(PARCEL_V2_WITH_DEFAULT).status()).isEqualTo(200);
    }

    @Test
    void backwardRejectsAFieldAddedWithoutADefaultAndSaysWhy() {
        register(PARCEL_V1);

        assertIncompatible(register(PARCEL_V2_WITHOUT_DEFAULT), "READER_FIELD_MISSING_DEFAULT_VALUE", "hub",
                "version 1", "BACKWARD");
        assertThat(http.get("/subjects/" + SUBJECT + "/versions").body()).isEqualTo("[1]");
    }

    @Test
    void forwardIsTheInverse() {
        level("FORWARD");
        register(PARCEL_V1);

        assertThat(register(PARCEL_V2_WITHOUT_DEFAULT).status())
                .as("the old reader ignores the new field").isEqualTo(200);
        assertIncompatible(register(PARCEL_WITHOUT_ID), "id", "FORWARD");
    }

    @Test
    void backwardAcceptsWhatForwardRejects() {
        register(PARCEL_V1);

        assertThat(register(PARCEL_WITHOUT_ID).status()).as("the new reader ignores the dropped field")
                .isEqualTo(200);
    }

    @Test
    void noneAcceptsAnything() {
        level("NONE");
        register(PARCEL_V1);

        assertThat(register(PARCEL_V2_WITHOUT_DEFAULT).status()).isEqualTo(200);
        assertThat(register(Schemas.HUB).status()).isEqualTo(200);
        assertThat(http.get("/subjects/" + SUBJECT + "/versions").body()).isEqualTo("[1,2,3]");
    }

    @Test
    void fullNeedsBothDirections() {
        level("FULL");
        register(PARCEL_V1);

        assertIncompatible(register(PARCEL_V2_WITHOUT_DEFAULT), "FULL");
        assertIncompatible(register(PARCEL_WITHOUT_ID), "FULL");
        assertThat(register(PARCEL_V2_WITH_DEFAULT).status()).isEqualTo(200);
    }

    /**
     * v1 {id} → v2 {id, hub="unknown"} → v3 {id, hub required}. v3 reads v2 data but not v1 data (no hub, no
     * default): only the transitive level notices, because it checks every version, not only the latest.
     */
    @ParameterizedTest(name = "{0}: v3 accepted = {1}")
    @CsvSource({"BACKWARD, true", "BACKWARD_TRANSITIVE, false", "FULL, true", "FULL_TRANSITIVE, false"})
    void transitiveLevelsCheckEveryVersion(String level, boolean accepted) {
        register(PARCEL_V1);
        register(PARCEL_V2_WITH_DEFAULT);
        level(level);

        Answer v3 = register(PARCEL_V3_HUB_REQUIRED);

        if (accepted) {
            assertThat(v3.status()).as(v3.body()).isEqualTo(200);
        } else {
            assertIncompatible(v3, "version 1", level);
        }
    }

    @Test
    void forwardTransitiveChecksEveryVersionToo() {
        level("NONE");
        register(PARCEL_V2_WITHOUT_DEFAULT);
        register(PARCEL_V2_WITH_DEFAULT);
        String v3 = PARCEL_V1;

        level("FORWARD");
        assertThat(http.post("/compatibility/subjects/" + SUBJECT + "/versions", schemaBody(v3)).body())
                .as("v2 (hub has a default) can read v3 data").isEqualTo("{\"is_compatible\":true}");

        level("FORWARD_TRANSITIVE");
        assertThat(http.post("/compatibility/subjects/" + SUBJECT + "/versions", schemaBody(v3)).body())
                .as("v1 (hub required) cannot read v3 data").isEqualTo("{\"is_compatible\":false}");
        assertIncompatible(register(v3), "version 1", "FORWARD_TRANSITIVE");
    }

    @Test
    void softDeletedVersionsNoLongerConstrain() {
        register(PARCEL_V1);
        http.delete("/subjects/" + SUBJECT + "/versions/1");

        assertThat(register(PARCEL_V2_WITHOUT_DEFAULT).status()).isEqualTo(200);
    }

    @Test
    void subjectLevelBeatsGlobalLevel() {
        assertThat(http.put("/config", "{\"compatibility\":\"NONE\"}").status()).isEqualTo(200);
        level("BACKWARD");
        register(PARCEL_V1);

        assertIncompatible(register(PARCEL_V2_WITHOUT_DEFAULT), "BACKWARD");
        assertThat(http.post("/subjects/other-value/versions", schemaBody(PARCEL_V1)).status()).isEqualTo(200);
        assertThat(http.post("/subjects/other-value/versions", schemaBody(PARCEL_V2_WITHOUT_DEFAULT)).status())
                .as("other subjects follow the global NONE").isEqualTo(200);
    }
}
