package io.streamhouse.launcher;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The last maintenance pass, read from the query service's {@code GET /v1/maintenance}. */
class MaintenanceRecordTest {

    @Test
    void aPassWithAFailedTableIsNotOk() {
        var m = MaintenanceRecord.of(200, Canned.json("lake-query-maintenance-failed-table"));

        assertThat(m.path("lastPassAt").asText()).isEqualTo("2026-12-04T10:00:00Z");
        assertThat(m.path("ok").asBoolean(true)).isFalse();
        assertThat(m.path("failedTables").asLong()).isEqualTo(1);
        assertThat(m.path("summary").asText()).startsWith("lake maintenance at 2026-12-04T10:00:00Z: 2 tables")
                .contains("streamhouse.parcels_scans: CommitFailedException");
        assertThat(m.path("nextPassAt").asText()).isEqualTo("2026-12-04T10:10:04Z");
        assertThat(m.has("unknown")).isFalse();
    }

    @Test
    void beforeTheFirstPassNothingIsOkOrFailed() {
        var m = MaintenanceRecord.of(200, Canned.json("lake-query-maintenance-no-pass"));

        assertThat(m.path("lastPassAt").isNull()).isTrue();
        assertThat(m.path("ok").isNull()).isTrue();
        assertThat(m.path("summary").asText()).isEqualTo("no pass yet");
        assertThat(m.path("nextPassAt").asText()).isEqualTo("2026-12-04T10:10:00Z");
    }

    @Test
    void offAndUnreadableAnswersSaySo() {
        assertThat(MaintenanceRecord.of(404, "{\"title\":\"Maintenance off\"}").path("off").asBoolean()).isTrue();
        var broken = MaintenanceRecord.of(500, "{\"title\":\"boom\"}");
        assertThat(broken.path("ok").isNull()).isTrue();
        assertThat(broken.path("unknown").asText()).isEqualTo("the query service answered 500 without a maintenance report");
        assertThat(MaintenanceRecord.of(200, "not json").has("unknown")).isTrue();
    }
}
