package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The lake's age per table: the log's newest record against the table's current snapshot. */
class LakeAgeTest {
    private static final Instant T = Instant.parse("2026-12-04T10:00:00Z");

    @Test
    void theLakeIsBehindByTheTimeBetweenItsSnapshotAndTheNewestRecord() {
        LakeAge.Table t = LakeAge.of("shop_orders", "shop.orders", Optional.of(T), Optional.of(T.plusMillis(2500)));

        assertThat(t.behindSeconds()).contains(2.5);
        assertThat(t.json().toString()).isEqualTo("{\"table\":\"shop_orders\",\"topic\":\"shop.orders\","
                + "\"snapshotAt\":\"2026-12-04T10:00:00Z\",\"logEndAt\":\"2026-12-04T10:00:02.500Z\",\"behindSeconds\":2.5}");
    }

    @Test
    void aSnapshotNewerThanTheNewestRecordOrAnEmptyTopicIsNotBehind() {
        assertThat(LakeAge.of("shop_orders", "shop.orders", Optional.of(T.plusSeconds(1)), Optional.of(T)).behindSeconds()).contains(0.0);
        assertThat(LakeAge.of("shop_orders", "shop.orders", Optional.empty(), Optional.empty()).behindSeconds()).contains(0.0);
    }

    @Test
    void recordsWithoutAnySnapshotAreUnknown() {
        LakeAge.Table t = LakeAge.of("shop_orders", "shop.orders", Optional.empty(), Optional.of(T));

        assertThat(t.behindSeconds()).isEmpty();
        assertThat(t.json().path("behindSeconds").isNull()).isTrue();
        assertThat(t.json().path("unknown").asText()).isEqualTo("no snapshot yet, the topic has records");
    }

    @Test
    void theCurrentSnapshotsCommitTimeComesFromTheMetadataFile() throws Exception {
        ObjectMapper json = new ObjectMapper();
        assertThat(LakeAge.currentSnapshotAt(json.readTree(Canned.json("iceberg-metadata-two-snapshots"))))
                .contains(Instant.ofEpochMilli(1796378403000L));
        assertThat(LakeAge.currentSnapshotAt(json.readTree(Canned.json("iceberg-metadata-no-snapshot")))).isEmpty();
    }
}
