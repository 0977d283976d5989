package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.control.StatusFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The details' shape in {@code status.json}, serving freshness from the api's readiness, and {@code status}'s lines. */
class HealthDetailsTest {
    private static final Instant T = Instant.parse("2026-12-04T10:00:00Z");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ProcessorLag.Entry SERVING = new ProcessorLag.Entry("api serving", "streamhouse-serving",
            Optional.of(12L), Optional.of(1.5), Map.of("parcels.scans", 12L), Optional.empty());
    private static final ProcessorLag.Entry CEP = ProcessorLag.Entry.unknown(new ProcessorLag.Processor("cep", "streamhouse-cep"),
            "its offsets were not read in time");

    @Test
    void readinessNamesTheProjectionsAndDecisionsStates() {
        var up = ServingFreshness.instance("http://127.0.0.1:8082", 200, Canned.json("api-ready-up"));
        assertThat(up.toString()).isEqualTo("{\"url\":\"http://127.0.0.1:8082\",\"ready\":true,\"projections\":\"RUNNING\","
                + "\"decisions\":\"RUNNING\",\"rules\":9}");

        var moving = ServingFreshness.instance("http://127.0.0.1:8083", 503, Canned.json("api-ready-rebalancing"));
        assertThat(moving.path("ready").asBoolean(true)).isFalse();
        assertThat(moving.path("projections").asText()).isEqualTo("REBALANCING");

        var odd = ServingFreshness.instance("http://127.0.0.1:8084", 502, "<html>bad gateway</html>");
        assertThat(odd.path("ready").isNull()).isTrue();
        assertThat(odd.path("unknown").asText()).isEqualTo("its readiness answered 502 without a health report");
    }

    @Test
    void freshnessIsReadyOnlyWhenEveryInstanceIsAndCarriesTheServingLag() {
        var up = ServingFreshness.instance("http://127.0.0.1:8082", 200, Canned.json("api-ready-up"));
        var moving = ServingFreshness.instance("http://127.0.0.1:8083", 503, Canned.json("api-ready-rebalancing"));

        var one = HealthDetails.freshness(List.of(up), Optional.of(SERVING));
        assertThat(one.path("ready").asBoolean()).isTrue();
        assertThat(one.path("group").asText()).isEqualTo("streamhouse-serving");
        assertThat(one.path("records").asLong()).isEqualTo(12);
        assertThat(one.path("seconds").asDouble()).isEqualTo(1.5);
        assertThat(one.has("unknown")).isFalse();

        assertThat(HealthDetails.freshness(List.of(up, moving), Optional.of(SERVING)).path("ready").asBoolean(true)).isFalse();
        var none = HealthDetails.freshness(List.of(), Optional.empty());
        assertThat(none.path("ready").isNull()).isTrue();
        assertThat(none.path("records").isNull()).isTrue();
        assertThat(none.path("unknown").asText()).isEqualTo("no api instance runs");
    }

    @Test
    void theDetailsAreValidJsonInStatusJsonUnderTheirFourKeys(@TempDir Path dir) throws Exception {
        var freshness = HealthDetails.freshness(List.of(ServingFreshness.instance("http://127.0.0.1:8082", 200,
                Canned.json("api-ready-up"))), Optional.of(SERVING));
        var lake = List.of(LakeAge.of("shop_orders", "shop.orders", Optional.of(T), Optional.of(T.plusSeconds(4))),
                LakeAge.of("parcels_scans", "parcels.scans", Optional.empty(), Optional.of(T)));
        var maintenance = MaintenanceRecord.of(200, Canned.json("lake-query-maintenance-failed-table"));
        Map<String, String> details = HealthDetails.json(List.of(SERVING, CEP), freshness, lake, maintenance);
        Path file = dir.resolve(StatusFile.NAME);

        StatusFile.write(file, new StatusFile.Snapshot(7, T, List.of(), List.of(), details));

        var status = JSON.readTree(file.toFile());
        assertThat(status.path("lag").get(0).path("seconds").asDouble()).isEqualTo(1.5);
        assertThat(status.path("lag").get(0).path("perTopic").path("parcels.scans").asLong()).isEqualTo(12);
        assertThat(status.path("lag").get(1).path("records").isNull()).isTrue();
        assertThat(status.path("lag").get(1).path("unknown").asText()).isEqualTo("its offsets were not read in time");
        assertThat(status.path("freshness").path("instances").get(0).path("projections").asText()).isEqualTo("RUNNING");
        assertThat(status.path("lake").get(0).path("behindSeconds").asDouble()).isEqualTo(4.0);
        assertThat(status.path("lake").get(1).path("unknown").asText()).isEqualTo("no snapshot yet, the topic has records");
        assertThat(status.path("maintenance").path("ok").asBoolean(true)).isFalse();
        assertThat(status.path("checks").isArray()).isTrue();
        assertThat(StatusFile.read(file).orElseThrow().details()).isEqualTo(details);
    }

    @Test
    void statusPrintsAShortLineForEachProcessorFreshnessAndTheLake() {
        var freshness = HealthDetails.freshness(List.of(ServingFreshness.instance("http://127.0.0.1:8082", 200,
                Canned.json("api-ready-up"))), Optional.of(SERVING));
        var lake = List.of(LakeAge.of("shop_orders", "shop.orders", Optional.of(T), Optional.of(T.plusSeconds(4))),
                LakeAge.of("parcels_scans", "parcels.scans", Optional.empty(), Optional.of(T)));

        List<String> lines = HealthDetails.statusLines(HealthDetails.json(List.of(SERVING, CEP), freshness, lake,
                MaintenanceRecord.unknown("the query service does not run")));

        assertThat(lines).containsExactly(
                "lag api serving: 12 records, 1.5 s behind",
                "lag cep: unknown (its offsets were not read in time)",
                "freshness: api ready (projections RUNNING, decisions RUNNING), serving 12 records, 1.5 s behind",
                "lake: 2 tables, at most 4.0 s behind the log (shop_orders), 1 unknown");
        assertThat(HealthDetails.statusLines(Map.of())).isEmpty();
    }
}
