package io.streamhouse.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.registry.Registry.SchemaRequest;
import io.streamhouse.registry.StoreRecord.ConfigKey;
import io.streamhouse.registry.StoreRecord.ConfigValue;
import io.streamhouse.registry.StoreRecord.DeleteSubjectKey;
import io.streamhouse.registry.StoreRecord.DeleteSubjectValue;
import io.streamhouse.registry.StoreRecord.IdWatermarkKey;
import io.streamhouse.registry.StoreRecord.IdWatermarkValue;
import io.streamhouse.registry.StoreRecord.SchemaKey;
import io.streamhouse.registry.StoreRecord.SchemaValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The log format and the fold: what survives compaction and a restart. */
class RegistryStateTest {

    private static SchemaRequest avro(String schema) {
        return new SchemaRequest(schema, null, false);
    }

    @Test
    void everyRecordKindRoundTripsThroughItsJson() {
        List<StoreRecord> records = List.of(
                new StoreRecord(new SchemaKey("s", 3), new SchemaValue("s", 3, 7, "\"string\"", "AVRO", true)),
                new StoreRecord(ConfigKey.GLOBAL, new ConfigValue(CompatibilityLevel.FULL)),
                new StoreRecord(new ConfigKey("s"), new ConfigValue(CompatibilityLevel.NONE)),
                new StoreRecord(new DeleteSubjectKey("s"), new DeleteSubjectValue("s", 3)),
                new StoreRecord(IdWatermarkKey.INSTANCE, new IdWatermarkValue(9)),
                StoreRecord.tombstone(new SchemaKey("s", 1)),
                StoreRecord.tombstone(new ConfigKey("s")));

        for (StoreRecord record : records) {
            assertThat(RecordCodec.decode(RecordCodec.encodeKey(record.key()), RecordCodec.encodeValue(record.value())))
                    .isEqualTo(record);
        }
    }

    @Test
    void keyBytesAreStableBecauseCompactionComparesBytes() {
        byte[] first = RecordCodec.encodeKey(new SchemaKey("parcels-value", 2));
        byte[] second = RecordCodec.encodeKey(new SchemaKey("parcels-value", 2));

        assertThat(first).isEqualTo(second);
        assertThat(new String(first, StandardCharsets.UTF_8))
                .isEqualTo("{\"keytype\":\"SCHEMA\",\"subject\":\"parcels-value\",\"version\":2,\"magic\":1}");
        assertThat(new String(RecordCodec.encodeKey(ConfigKey.GLOBAL), StandardCharsets.UTF_8))
                .isEqualTo("{\"keytype\":\"CONFIG\",\"magic\":1}");
    }

    @Test
    void unknownKindsAreSkippedButGarbageIsRefused() {
        assertThat(RecordCodec.decode("{\"keytype\":\"NOOP\",\"magic\":0}".getBytes(StandardCharsets.UTF_8), null))
                .isNull();
        assertThatThrownBy(() -> RecordCodec.decode("not json".getBytes(StandardCharsets.UTF_8), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecordCodec.decode("{\"keytype\":\"SCHEMA\"}".getBytes(StandardCharsets.UTF_8),
                null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void recordsAreCheckedAgainstTheirKey() {
        assertThatThrownBy(() -> new StoreRecord(new SchemaKey("a", 1),
                new SchemaValue("b", 1, 1, "\"int\"", "AVRO", false)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StoreRecord(ConfigKey.GLOBAL, new IdWatermarkValue(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Compaction keeps only the newest record per key and eventually drops tombstones. A registry replaying the
     * compacted log must answer exactly as one replaying the whole log, including never handing out a hard-deleted
     * schema's id again (that is what the id watermark is for).
     */
    @Test
    void aCompactedLogGivesTheSameRegistry() {
        InMemorySchemaStore store = new InMemorySchemaStore();
        try (Registry registry = new Registry(store)) {
            registry.register("parcels-value", avro(Schemas.PARCEL_V1));
            registry.register("parcels-value", avro(Schemas.PARCEL_V2_WITH_DEFAULT));
            registry.register("hubs-value", avro(Schemas.HUB));
            registry.register("scans-value", avro(Schemas.SCAN));
            registry.setGlobalLevel(CompatibilityLevel.FULL);
            registry.setSubjectLevel("parcels-value", CompatibilityLevel.NONE);
            registry.deleteVersion("parcels-value", 1, false);
            registry.deleteSubject("scans-value", false);
            registry.deleteSubject("scans-value", true);
            registry.deleteSubject("hubs-value", false);
        }

        InMemorySchemaStore compacted = new InMemorySchemaStore();
        compact(store.records()).forEach(compacted::append);
        assertThat(compacted.records()).hasSizeLessThan(store.records().size());

        try (Registry whole = new Registry(store); Registry fromCompacted = new Registry(compacted)) {
            for (Registry registry : List.of(whole, fromCompacted)) {
                assertThat(registry.subjects(false)).containsExactly("parcels-value");
                assertThat(registry.subjects(true)).containsExactly("hubs-value", "parcels-value");
                assertThat(registry.versions("parcels-value", true)).containsExactly(1, 2);
                assertThat(registry.versions("parcels-value", false)).containsExactly(2);
                assertThat(registry.globalLevel()).isEqualTo(CompatibilityLevel.FULL);
                assertThat(registry.subjectLevel("parcels-value")).contains(CompatibilityLevel.NONE);
                assertThat(registry.schemaById(3)).contains("Hub");
                assertThatThrownBy(() -> registry.schemaById(4)).isInstanceOf(RegistryException.class);
            }
            assertThat(fromCompacted.register("new-value", avro(Schemas.PARCEL_V3_HUB_REQUIRED.replace("Parcel",
                    "Other")))).as("id 4 belonged to the hard-deleted scans schema").isEqualTo(5);
        }
    }

    /** Newest record per key, in the order of their last write, tombstones dropped: what the log cleaner leaves. */
    private static List<StoreRecord> compact(List<StoreRecord> log) {
        Map<String, StoreRecord> newest = new LinkedHashMap<>();
        for (StoreRecord record : log) {
            String key = Arrays.toString(RecordCodec.encodeKey(record.key()));
            newest.remove(key);
            newest.put(key, record);
        }
        List<StoreRecord> survivors = new ArrayList<>();
        Consumer<StoreRecord> keep = record -> {
            if (!record.isTombstone()) {
                survivors.add(record);
            }
        };
        newest.values().forEach(keep);
        return survivors;
    }
}
