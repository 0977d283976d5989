package io.streamhouse.registry;

import static io.streamhouse.registry.RegistryHttp.schemaBody;
import static io.streamhouse.registry.Schemas.HUB;
import static io.streamhouse.registry.Schemas.PARCEL_V1;
import static io.streamhouse.registry.Schemas.PARCEL_V1_REFORMATTED;
import static io.streamhouse.registry.Schemas.PARCEL_V2_WITH_DEFAULT;
import static io.streamhouse.registry.Schemas.SCAN;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.registry.RegistryHttp.Answer;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Every endpoint and error code of the REST API, over the in-memory store. */
class RegistryApiTest {

    private InMemorySchemaStore store;
    private SchemaRegistryServer server;
    private RegistryHttp http;

    @BeforeEach
    void start() {
        store = new InMemorySchemaStore();
        server = SchemaRegistryServer.start("127.0.0.1", 0, store);
        http = new RegistryHttp(server.url());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static String canonical(String schema) {
        return new Schema.Parser().parse(schema).toString();
    }

    private static void assertError(Answer answer, int status, int errorCode) {
        assertThat(answer.status()).as("HTTP status of %s", answer.body()).isEqualTo(status);
        assertThat(answer.errorCode()).as("error_code of %s", answer.body()).isEqualTo(errorCode);
        assertThat(answer.message()).isNotBlank();
        assertThat(answer.contentType()).isEqualTo("application/vnd.schemaregistry.v1+json");
    }

    @Nested
    class Basics {
        @Test
        void rootIsAnEmptyObjectAndTheOnlyTypeIsAvro() {
            Answer root = http.get("/");
            assertThat(root.status()).isEqualTo(200);
            assertThat(root.body()).isEqualTo("{}");
            assertThat(root.contentType()).isEqualTo("application/vnd.schemaregistry.v1+json");
            assertThat(http.get("/schemas/types").body()).isEqualTo("[\"AVRO\"]");
        }

        @Test
        void unknownPathsAndMethodsAreJsonErrors() {
            assertError(http.get("/no/such/thing"), 404, 404);
            assertError(http.get("/subjects/a/bogus"), 404, 404);
            assertError(http.get("/schemas/ids/not-a-number"), 404, 404);
            assertError(http.put("/subjects/a/versions", schemaBody(PARCEL_V1)), 405, 405);
            assertError(http.post("/schemas/types", "{}"), 405, 405);
        }

        @Test
        void modeAndContextsAnswerWhatClientsExpect() {
            assertThat(http.get("/mode").json().get("mode").asText()).isEqualTo("READWRITE");
            assertThat(http.get("/contexts").body()).isEqualTo("[\".\"]");
            assertThat(http.get("/associations/resources/-/parcels?resourceType=topic&associationType=value").body())
                    .isEqualTo("[]");
        }
    }

    @Nested
    class Registering {
        @Test
        void idsAreGlobalAndRegistrationIsIdempotent() {
            int parcel = http.register("parcels-value", PARCEL_V1);
            int again = http.register("parcels-value", PARCEL_V1_REFORMATTED);
            int otherSubject = http.register("parcels-key", PARCEL_V1);
            int hub = http.register("hubs-value", HUB);

            assertThat(parcel).isEqualTo(1);
            assertThat(again).as("same schema, other whitespace and key order").isEqualTo(parcel);
            assertThat(otherSubject).as("same schema under another subject").isEqualTo(parcel);
            assertThat(hub).isEqualTo(2);
            assertThat(http.get("/subjects/parcels-value/versions").body()).isEqualTo("[1]");
            assertThat(store.records()).as("an idempotent register writes nothing").hasSize(3);
        }

        @Test
        void newVersionsCountUp() {
            http.register("parcels-value", PARCEL_V1);
            int v2 = http.register("parcels-value", PARCEL_V2_WITH_DEFAULT);

            assertThat(v2).isEqualTo(2);
            assertThat(http.get("/subjects/parcels-value/versions").body()).isEqualTo("[1,2]");
        }

        @Test
        void unparsableSchemasAre42201WithAvrosReason() {
            Answer answer = http.post("/subjects/s/versions", schemaBody("{\"type\":\"record\",\"name\":\"X\"}"));
            assertError(answer, 422, 42201);
            assertThat(answer.message()).contains("fields");

            Answer badDefault = http.post("/subjects/s/versions", schemaBody("""
                    {"type":"record","name":"X","fields":[{"name":"n","type":"int","default":"seven"}]}"""));
            assertError(badDefault, 422, 42201);
            assertThat(badDefault.message()).contains("n");

            assertError(http.post("/subjects/s/versions", "{}"), 422, 42201);
            assertError(http.post("/subjects/s/versions", "{\"schema\":\"not json\"}"), 422, 42201);
            assertThat(http.get("/subjects").body()).isEqualTo("[]");
        }

        @Test
        void otherSchemaTypesAndReferencesAreRefusedNotMisread() {
            String protobuf = RegistryHttp.JSON.createObjectNode().put("schema", "syntax = \"proto3\";")
                    .put("schemaType", "PROTOBUF").toString();
            assertError(http.post("/subjects/s/versions", protobuf), 422, 42201);

            String withReferences = RegistryHttp.JSON.createObjectNode().put("schema", PARCEL_V1)
                    .put("schemaType", "AVRO").set("references", RegistryHttp.JSON.createArrayNode()
                            .add(RegistryHttp.JSON.createObjectNode().put("name", "Hub").put("subject", "hubs-value")
                                    .put("version", 1))).toString();
            assertError(http.post("/subjects/s/versions", withReferences), 422, 42201);

            String explicitAvro = RegistryHttp.JSON.createObjectNode().put("schema", PARCEL_V1)
                    .put("schemaType", "AVRO").set("references", RegistryHttp.JSON.createArrayNode()).toString();
            assertThat(http.post("/subjects/s/versions", explicitAvro).status()).isEqualTo(200);
        }

        @Test
        void malformedJsonIs400() {
            assertError(http.post("/subjects/s/versions", "{not json"), 400, 400);
        }

        @Test
        void subjectNamesMayContainEncodedSlashesSpacesAndPluses() {
            int id = http.register("team%2Fparcels%20v1+beta-value", PARCEL_V1);

            assertThat(http.get("/subjects").json().get(0).asText()).isEqualTo("team/parcels v1+beta-value");
            assertThat(http.get("/subjects/team%2Fparcels%20v1+beta-value/versions/1").json().get("id").asInt())
                    .isEqualTo(id);
        }
    }

    @Nested
    class ReadingVersions {
        @BeforeEach
        void twoVersions() {
            http.register("parcels-value", PARCEL_V1);
            http.register("parcels-value", PARCEL_V2_WITH_DEFAULT);
        }

        @Test
        void versionAnswerHasSubjectVersionIdSchemaAndNoSchemaTypeForAvro() {
            Answer answer = http.get("/subjects/parcels-value/versions/1");

            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.json().get("subject").asText()).isEqualTo("parcels-value");
            assertThat(answer.json().get("version").asInt()).isEqualTo(1);
            assertThat(answer.json().get("id").asInt()).isEqualTo(1);
            assertThat(answer.json().get("schema").asText()).isEqualTo(canonical(PARCEL_V1));
            assertThat(answer.json().has("schemaType")).isFalse();
        }

        @Test
        void latestAndMinusOneAreTheNewestVersion() {
            assertThat(http.get("/subjects/parcels-value/versions/latest").json().get("version").asInt())
                    .isEqualTo(2);
            assertThat(http.get("/subjects/parcels-value/versions/-1").json().get("id").asInt()).isEqualTo(2);
        }

        @Test
        void rawSchemaEndpointReturnsTheSchemaItself() {
            Answer raw = http.get("/subjects/parcels-value/versions/2/schema");

            assertThat(raw.status()).isEqualTo(200);
            assertThat(raw.body()).isEqualTo(canonical(PARCEL_V2_WITH_DEFAULT));
        }

        @Test
        void missingAndInvalidVersionsHaveTheirOwnCodes() {
            assertError(http.get("/subjects/parcels-value/versions/7"), 404, 40402);
            assertError(http.get("/subjects/nobody/versions/1"), 404, 40401);
            assertError(http.get("/subjects/nobody/versions"), 404, 40401);
            assertError(http.get("/subjects/parcels-value/versions/0"), 422, 42202);
            assertError(http.get("/subjects/parcels-value/versions/-2"), 422, 42202);
            assertError(http.get("/subjects/parcels-value/versions/newest"), 422, 42202);
            assertError(http.get("/subjects/parcels-value/versions/99999999999"), 422, 42202);
        }

        @Test
        void subjectsAreSortedAndFilterableByPrefix() {
            http.register("hubs-value", HUB);

            assertThat(http.get("/subjects").body()).isEqualTo("[\"hubs-value\",\"parcels-value\"]");
            assertThat(http.get("/subjects?subjectPrefix=par").body()).isEqualTo("[\"parcels-value\"]");
        }

        @Test
        void referencedByIsEmptyBecauseNothingHasReferences() {
            assertThat(http.get("/subjects/parcels-value/versions/1/referencedby").body()).isEqualTo("[]");
            assertError(http.get("/subjects/parcels-value/versions/9/referencedby"), 404, 40402);
        }
    }

    @Nested
    class LookingUp {
        @Test
        void lookupFindsTheVersionOfASchema() {
            http.register("parcels-value", PARCEL_V1);
            http.register("parcels-value", PARCEL_V2_WITH_DEFAULT);

            Answer answer = http.post("/subjects/parcels-value?normalize=false", schemaBody(PARCEL_V1_REFORMATTED));

            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.json().get("subject").asText()).isEqualTo("parcels-value");
            assertThat(answer.json().get("id").asInt()).isEqualTo(1);
            assertThat(answer.json().get("version").asInt()).isEqualTo(1);
            assertThat(answer.json().get("schema").asText()).isEqualTo(canonical(PARCEL_V1));
        }

        @Test
        void lookupDistinguishesUnknownSubjectFromUnknownSchema() {
            http.register("parcels-value", PARCEL_V1);

            assertError(http.post("/subjects/nobody", schemaBody(PARCEL_V1)), 404, 40401);
            assertError(http.post("/subjects/parcels-value", schemaBody(HUB)), 404, 40403);
            assertError(http.post("/subjects/parcels-value", schemaBody("{oops")), 422, 42201);
        }

        @Test
        void lookupSeesSoftDeletedVersionsOnlyWhenAsked() {
            http.register("parcels-value", PARCEL_V1);
            http.delete("/subjects/parcels-value");

            assertError(http.post("/subjects/parcels-value", schemaBody(PARCEL_V1)), 404, 40401);
            assertThat(http.post("/subjects/parcels-value?deleted=true", schemaBody(PARCEL_V1)).json().get("id")
                    .asInt()).isEqualTo(1);
        }
    }

    @Nested
    class ById {
        @Test
        void schemaByIdAndItsUses() {
            http.register("parcels-value", PARCEL_V1);
            http.register("archive-value", PARCEL_V1);

            Answer byId = http.get("/schemas/ids/1?subject=ignored&format=resolved&fetchMaxId=false");
            assertThat(byId.status()).isEqualTo(200);
            assertThat(byId.json().get("schema").asText()).isEqualTo(canonical(PARCEL_V1));
            assertThat(byId.json().has("schemaType")).isFalse();
            assertThat(http.get("/schemas/ids/1/schema").body()).isEqualTo(canonical(PARCEL_V1));
            assertThat(http.get("/schemas/ids/1/versions").body()).isEqualTo(
                    "[{\"subject\":\"archive-value\",\"version\":1},{\"subject\":\"parcels-value\",\"version\":1}]");
            assertThat(http.get("/schemas/ids/1/subjects").body()).isEqualTo("[\"archive-value\",\"parcels-value\"]");
        }

        @Test
        void unknownIdIs40403() {
            assertError(http.get("/schemas/ids/42"), 404, 40403);
            assertError(http.get("/schemas/ids/42/schema"), 404, 40403);
            assertError(http.get("/schemas/ids/42/versions"), 404, 40403);
            assertError(http.get("/schemas/ids/42/subjects"), 404, 40403);
        }

        @Test
        void softDeletedSchemasStillResolveByIdButAreHiddenFromTheirUses() {
            http.register("parcels-value", PARCEL_V1);
            http.delete("/subjects/parcels-value");

            assertThat(http.get("/schemas/ids/1").status()).as("bytes on topics still carry id 1").isEqualTo(200);
            assertThat(http.get("/schemas/ids/1/subjects").body()).isEqualTo("[]");
            assertThat(http.get("/schemas/ids/1/subjects?deleted=true").body()).isEqualTo("[\"parcels-value\"]");
        }
    }

    @Nested
    class Deleting {
        @BeforeEach
        void twoVersions() {
            http.register("parcels-value", PARCEL_V1);
            http.register("parcels-value", PARCEL_V2_WITH_DEFAULT);
        }

        @Test
        void softDeleteHidesTheSubjectUntilAskedFor() {
            Answer deleted = http.delete("/subjects/parcels-value");

            assertThat(deleted.status()).isEqualTo(200);
            assertThat(deleted.body()).isEqualTo("[1,2]");
            assertThat(http.get("/subjects").body()).isEqualTo("[]");
            assertThat(http.get("/subjects?deleted=true").body()).isEqualTo("[\"parcels-value\"]");
            assertError(http.get("/subjects/parcels-value/versions"), 404, 40401);
            assertThat(http.get("/subjects/parcels-value/versions?deleted=true").body()).isEqualTo("[1,2]");
            assertError(http.get("/subjects/parcels-value/versions/1"), 404, 40401);
            assertThat(http.get("/subjects/parcels-value/versions/1?deleted=true").json().get("id").asInt())
                    .isEqualTo(1);
        }

        @Test
        void hardDeleteOnlyAfterSoftDelete() {
            assertError(http.delete("/subjects/parcels-value?permanent=true"), 404, 40405);

            http.delete("/subjects/parcels-value");
            assertError(http.delete("/subjects/parcels-value"), 404, 40404);
            Answer hard = http.delete("/subjects/parcels-value?permanent=true");

            assertThat(hard.body()).isEqualTo("[1,2]");
            assertThat(http.get("/subjects?deleted=true").body()).isEqualTo("[]");
            assertError(http.get("/schemas/ids/1"), 404, 40403);
            assertError(http.delete("/subjects/parcels-value"), 404, 40401);
        }

        @Test
        void versionsKeepCountingAfterASoftDeleteAndRestartAfterAHardOne() {
            http.delete("/subjects/parcels-value");
            int id = http.register("parcels-value", PARCEL_V1);

            assertThat(id).as("the schema keeps its id").isEqualTo(1);
            assertThat(http.get("/subjects/parcels-value/versions").body()).isEqualTo("[3]");

            http.delete("/subjects/parcels-value");
            http.delete("/subjects/parcels-value?permanent=true");
            http.register("parcels-value", HUB);
            assertThat(http.get("/subjects/parcels-value/versions").body()).isEqualTo("[1]");
        }

        @Test
        void idsAreNeverReusedAfterAHardDelete() {
            http.delete("/subjects/parcels-value");
            http.delete("/subjects/parcels-value?permanent=true");

            int next = http.register("hubs-value", HUB);

            assertThat(next).as("ids 1 and 2 may still be on topics").isEqualTo(3);
        }

        @Test
        void versionDeletesFollowTheSameRules() {
            assertError(http.delete("/subjects/parcels-value/versions/2?permanent=true"), 404, 40407);

            Answer soft = http.delete("/subjects/parcels-value/versions/2");
            assertThat(soft.status()).isEqualTo(200);
            assertThat(soft.body()).isEqualTo("2");
            assertThat(http.get("/subjects/parcels-value/versions").body()).isEqualTo("[1]");
            assertThat(http.get("/subjects/parcels-value/versions/latest").json().get("version").asInt())
                    .isEqualTo(1);
            assertError(http.get("/subjects/parcels-value/versions/2"), 404, 40402);
            assertError(http.delete("/subjects/parcels-value/versions/2"), 404, 40406);

            assertThat(http.delete("/subjects/parcels-value/versions/2?permanent=true").body()).isEqualTo("2");
            assertThat(http.get("/subjects/parcels-value/versions?deleted=true").body()).isEqualTo("[1]");
            assertError(http.delete("/subjects/parcels-value/versions/2?permanent=true"), 404, 40402);
            assertError(http.delete("/subjects/nobody/versions/1"), 404, 40401);
            assertError(http.delete("/subjects/parcels-value/versions/zero"), 422, 42202);
        }

        @Test
        void deletingLatestDeletesTheNewestLiveVersion() {
            assertThat(http.delete("/subjects/parcels-value/versions/latest").body()).isEqualTo("2");
            assertThat(http.delete("/subjects/parcels-value/versions/latest").body()).isEqualTo("1");
            assertError(http.delete("/subjects/parcels-value/versions/latest"), 404, 40404);
        }
    }

    @Nested
    class Config {
        @Test
        void globalLevelDefaultsToBackwardAndCanBeChanged() {
            assertThat(http.get("/config").body()).isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");

            Answer put = http.put("/config", "{\"compatibility\":\"full_transitive\"}");

            assertThat(put.status()).isEqualTo(200);
            assertThat(put.body()).isEqualTo("{\"compatibility\":\"FULL_TRANSITIVE\"}");
            assertThat(http.get("/config").json().get("compatibilityLevel").asText()).isEqualTo("FULL_TRANSITIVE");
            assertThat(http.delete("/config").json().get("compatibilityLevel").asText())
                    .isEqualTo("FULL_TRANSITIVE");
            assertThat(http.get("/config").json().get("compatibilityLevel").asText()).isEqualTo("BACKWARD");
        }

        @Test
        void invalidLevelsAre42203() {
            assertError(http.put("/config", "{\"compatibility\":\"SIDEWAYS\"}"), 422, 42203);
            assertError(http.put("/config", "{}"), 422, 42203);
            assertError(http.put("/config/parcels-value", "{\"compatibility\":\"\"}"), 422, 42203);
            assertThat(http.get("/config").json().get("compatibilityLevel").asText()).isEqualTo("BACKWARD");
        }

        @Test
        void subjectLevelOverridesGlobalAndCanBeRemoved() {
            assertError(http.get("/config/parcels-value"), 404, 40408);
            assertThat(http.get("/config/parcels-value?defaultToGlobal=true").json().get("compatibilityLevel")
                    .asText()).isEqualTo("BACKWARD");

            assertThat(http.put("/config/parcels-value", "{\"compatibility\":\"NONE\"}").body())
                    .isEqualTo("{\"compatibility\":\"NONE\"}");
            assertThat(http.get("/config/parcels-value").json().get("compatibilityLevel").asText())
                    .isEqualTo("NONE");

            Answer removed = http.delete("/config/parcels-value");
            assertThat(removed.json().get("compatibilityLevel").asText()).isEqualTo("NONE");
            assertError(http.get("/config/parcels-value"), 404, 40408);
            assertError(http.delete("/config/parcels-value"), 404, 40401);
            http.register("parcels-value", PARCEL_V1);
            assertError(http.delete("/config/parcels-value"), 404, 40408);
        }

        @Test
        void softDeletingASubjectForgetsItsLevelAsConfluentDoes() {
            http.register("parcels-value", PARCEL_V1);
            http.put("/config/parcels-value", "{\"compatibility\":\"FULL\"}");

            http.delete("/subjects/parcels-value");

            assertError(http.get("/config/parcels-value"), 404, 40408);
        }
    }

    @Nested
    class CompatibilityEndpoints {
        @Test
        void checkAgainstLatestAndAgainstOneVersion() {
            http.register("scans-value", SCAN);
            String renamed = SCAN.replace("weightGrams", "weightKg");

            Answer latest = http.post("/compatibility/subjects/scans-value/versions/latest", schemaBody(renamed));
            assertThat(latest.status()).isEqualTo(200);
            assertThat(latest.body()).isEqualTo("{\"is_compatible\":false}");

            Answer verbose = http.post("/compatibility/subjects/scans-value/versions/1?verbose=true",
                    schemaBody(renamed));
            assertThat(verbose.json().get("is_compatible").asBoolean()).isFalse();
            assertThat(verbose.json().get("messages").toString()).contains("weightKg")
                    .contains("READER_FIELD_MISSING_DEFAULT_VALUE");

            Answer same = http.post("/compatibility/subjects/scans-value/versions?verbose=true", schemaBody(SCAN));
            assertThat(same.body()).isEqualTo("{\"is_compatible\":true,\"messages\":[]}");
        }

        @Test
        void nothingToBreakMeansCompatible() {
            assertThat(http.post("/compatibility/subjects/new-value/versions/latest", schemaBody(SCAN)).body())
                    .isEqualTo("{\"is_compatible\":true}");
            assertThat(http.post("/compatibility/subjects/new-value/versions", schemaBody(SCAN)).body())
                    .isEqualTo("{\"is_compatible\":true}");
        }

        @Test
        void namedVersionsMustExist() {
            http.register("scans-value", SCAN);

            assertError(http.post("/compatibility/subjects/scans-value/versions/4", schemaBody(SCAN)), 404, 40402);
            assertError(http.post("/compatibility/subjects/nobody/versions/1", schemaBody(SCAN)), 404, 40401);
            assertError(http.post("/compatibility/subjects/scans-value/versions/x", schemaBody(SCAN)), 422, 42202);
            assertError(http.post("/compatibility/subjects/scans-value/versions/1", schemaBody("[")), 422, 42201);
            assertError(http.get("/compatibility/subjects/scans-value/versions/1"), 405, 405);
        }
    }

    @Nested
    class StoreFailures {
        @Test
        void aFailedWriteIs50001AndLeavesNoTrace() {
            http.register("parcels-value", PARCEL_V1);
            store.failWrites(new IllegalStateException("broker unreachable"));

            Answer failed = http.post("/subjects/parcels-value/versions", schemaBody(PARCEL_V2_WITH_DEFAULT));
            assertError(failed, 500, 50001);
            assertThat(failed.message()).contains("broker unreachable");
            assertError(http.put("/config", "{\"compatibility\":\"NONE\"}"), 500, 50001);
            assertThat(http.get("/subjects/parcels-value/versions").body()).as("reads still work").isEqualTo("[1]");

            store.failWrites(null);
            assertThat(http.register("parcels-value", PARCEL_V2_WITH_DEFAULT)).isEqualTo(2);
            assertThat(http.get("/subjects/parcels-value/versions").body()).isEqualTo("[1,2]");
        }

        @Test
        void aRestartOnTheSameStoreSeesEverything() {
            http.register("parcels-value", PARCEL_V1);
            http.register("parcels-value", PARCEL_V2_WITH_DEFAULT);
            http.register("hubs-value", HUB);
            http.delete("/subjects/hubs-value");
            http.put("/config/parcels-value", "{\"compatibility\":\"FULL\"}");
            server.close();

            server = SchemaRegistryServer.start("127.0.0.1", 0, store);
            http = new RegistryHttp(server.url());

            assertThat(http.get("/subjects").body()).isEqualTo("[\"parcels-value\"]");
            assertThat(http.get("/subjects?deleted=true").body()).isEqualTo("[\"hubs-value\",\"parcels-value\"]");
            assertThat(http.get("/subjects/parcels-value/versions/2").json().get("id").asInt()).isEqualTo(2);
            assertThat(http.get("/config/parcels-value").json().get("compatibilityLevel").asText()).isEqualTo("FULL");
            assertThat(http.register("scans-value", SCAN)).isEqualTo(4);
        }
    }
}
