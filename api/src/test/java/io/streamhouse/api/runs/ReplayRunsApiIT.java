package io.streamhouse.api.runs;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.streamhouse.control.RunResults;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /v1/replay/runs} over run records planted in the app's results directory, as the replay CLI writes them
 * ({@link RunResults}): newest first, as written, with their file names; a broken one listed with an error; the
 * limit checked.
 */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = RunRecordsDirResource.class, restrictToAnnotatedClass = true)
class ReplayRunsApiIT {
    static final String OPS = TestTokens.bearer(TestTokens.forRole(Roles.OPS));
    static final Instant T0 = Instant.parse("2026-12-06T15:40:01.123Z");

    /** Looked up, not injected: an injection point would make every other @QuarkusTest's app require the property. */
    private static Path dir() {
        return Path.of(ConfigProvider.getConfig().getValue("streamhouse.results-dir", String.class));
    }

    private static Response runs(String query) {
        return given().header("Authorization", OPS).get("/v1/replay/runs" + query);
    }

    @Test
    void servesTheRecordsNewestFirstAsWrittenAndListsABrokenOneWithAnError() throws Exception {
        Path dir = dir();
        RunResults.write(dir, T0, "rebuild", """
                {"kind": "rebuild", "command": "rebuild", "exitCode": 1, "verdict": "DIVERGENT",
                 "summary": {"shadowId": "s1", "result": "DIVERGENT", "divergences": 3}}""");
        RunResults.write(dir, T0.plusSeconds(60), "drill-kill-api", """
                {"kind": "drill", "command": "drill kill-api", "exitCode": 0, "verdict": "PASS",
                 "summary": {"scenario": "kill-api", "result": "PASS", "decisions": {"lost": 0}}}""");
        Files.writeString(dir.resolve("20261206T154300000Z-promote.json"), "{\"kind\": \"prom");
        Files.writeString(dir.resolve("notes.json"), "{\"kind\": \"not a run\"}");

        Response all = runs("");
        assertThat(all.statusCode()).as(all.asString()).isEqualTo(200);
        assertThat(all.jsonPath().getInt("limit")).isEqualTo(20);
        assertThat(all.jsonPath().getInt("available")).isEqualTo(3);
        assertThat(all.jsonPath().getList("runs.file")).containsExactly("20261206T154300000Z-promote.json",
                "20261206T154101123Z-drill-kill-api.json", "20261206T154001123Z-rebuild.json");
        assertThat(all.jsonPath().getString("runs[0].error")).startsWith("unreadable: ");
        Map<String, Object> drill = all.jsonPath().getMap("runs[1]");
        assertThat(drill).containsEntry("verdict", "PASS").containsEntry("exitCode", 0).doesNotContainKey("error");
        assertThat(all.jsonPath().getInt("runs[1].summary.decisions.lost")).isZero();
        assertThat(all.jsonPath().getInt("runs[2].summary.divergences")).isEqualTo(3);

        Response two = runs("?limit=2");
        assertThat(two.jsonPath().getList("runs.file")).hasSize(2).first().isEqualTo("20261206T154300000Z-promote.json");
    }

    @Test
    void aLimitOutsideOneToAHundredIsA400NamingLimit() {
        for (String bad : List.of("0", "101", "ten", "-5", "1.5")) {
            Response answer = runs("?limit=" + bad);
            assertThat(answer.statusCode()).as("limit=%s", bad).isEqualTo(400);
            assertThat(answer.contentType()).startsWith("application/problem+json");
            assertThat(answer.jsonPath().getString("errors[0].field")).isEqualTo("limit");
        }
        assertThat(runs("?limit=100").statusCode()).isEqualTo(200);
        assertThat(runs("?limit=").jsonPath().getInt("limit")).as("an empty limit is the default").isEqualTo(20);
    }

    @Test
    void onlyOpsMayRead() {
        assertThat(given().get("/v1/replay/runs").statusCode()).isEqualTo(401);
        assertThat(given().header("Authorization", TestTokens.bearer(TestTokens.forRole(Roles.ANALYST))).get("/v1/replay/runs")
                .statusCode()).isEqualTo(403);
    }
}
