package io.streamhouse.domain.wire;

import static io.streamhouse.domain.wire.Shipments.ROTTERDAM_SCAN;
import static io.streamhouse.domain.wire.Shipments.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.domain.wire.fixture.ShipmentScanned;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

/** The serde against the in-memory registry: everything except HTTP. */
class AvroSerdeTest {

    private final InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
    private final AvroSerde<ShipmentScanned> valueSerde = new AvroSerde<>(registry, ShipmentScanned.class, false);

    @Test
    void roundTripKeepsEveryField() {
        byte[] bytes = valueSerde.serializer().serialize(TOPIC, ROTTERDAM_SCAN);

        assertThat(bytes[0]).isEqualTo(WireFormat.MAGIC_BYTE);
        assertThat(WireFormat.schemaId(bytes, TOPIC)).isEqualTo(registry.getLatest(TOPIC + "-value").id());
        assertThat(valueSerde.deserializer().deserialize(TOPIC, bytes)).isEqualTo(ROTTERDAM_SCAN);
    }

    @Test
    void aReusedBufferHoldsOnlyTheRecordAtHand() throws java.io.IOException {
        ShipmentScanned big = ShipmentScanned.newBuilder(ROTTERDAM_SCAN).setNote("x".repeat(200_000)).build();

        byte[] first = valueSerde.serializer().serialize(TOPIC, big);
        byte[] small = valueSerde.serializer().serialize(TOPIC, ROTTERDAM_SCAN);
        byte[] again = valueSerde.serializer().serialize(TOPIC, big);

        assertThat(valueSerde.deserializer().deserialize(TOPIC, first)).isEqualTo(big);
        assertThat(small).as("header and body, nothing of the larger record before it")
                .isEqualTo(WireFormat.frame(WireFormat.schemaId(first, TOPIC), plainAvro(ROTTERDAM_SCAN)));
        assertThat(again).isEqualTo(first);
    }

    private static byte[] plainAvro(ShipmentScanned record) throws java.io.IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        org.apache.avro.io.BinaryEncoder encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
        new org.apache.avro.specific.SpecificDatumWriter<>(ShipmentScanned.class).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    @Test
    void theRegisteredSchemaIsTheLanguageNeutralOne() {
        valueSerde.serializer().serialize(TOPIC, ROTTERDAM_SCAN);

        org.apache.avro.Schema registered = registry.getLatest(TOPIC + "-value").schema();
        assertThat(ShipmentScanned.getClassSchema().toString()).as("what the generator embeds")
                .contains(AvroSchemas.JAVA_STRING_PROPERTY);
        assertThat(registered.toString()).doesNotContain(AvroSchemas.JAVA_STRING_PROPERTY);
        assertThat(registered.getField("note").doc()).isEqualTo("Added in v2.");
        assertThat(registry.register(TOPIC + "-value", Shipments.V2_AS_WRITTEN))
                .as("a producer registering the .avsc file gets the same id")
                .isEqualTo(registry.getLatest(TOPIC + "-value").id());
    }

    @Test
    void valuesAndKeysUseTopicNameStrategySubjects() {
        AvroSerde<ShipmentScanned> keySerde = new AvroSerde<>(registry, ShipmentScanned.class, true);

        keySerde.serializer().serialize(TOPIC, ROTTERDAM_SCAN);
        valueSerde.serializer().serialize(TOPIC, ROTTERDAM_SCAN);

        assertThat(registry.subjects()).containsExactly(TOPIC + "-key", TOPIC + "-value");
        assertThat(registry.getLatest(TOPIC + "-key").id())
                .as("same schema under two subjects shares one global id")
                .isEqualTo(registry.getLatest(TOPIC + "-value").id());
    }

    @Test
    void nullIsATombstoneBothWays() {
        assertThat(valueSerde.serializer().serialize(TOPIC, null)).isNull();
        assertThat(valueSerde.deserializer().deserialize(TOPIC, null)).isNull();
        assertThat(registry.subjects()).as("a tombstone registers nothing").isEmpty();
    }

    @Test
    void badMagicByteNamesTopicAndByte() {
        byte[] bytes = valueSerde.serializer().serialize(TOPIC, ROTTERDAM_SCAN);
        bytes[0] = 0x7b;

        assertThatThrownBy(() -> valueSerde.deserializer().deserialize(TOPIC, bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessage("Cannot deserialize record from topic '" + TOPIC + "': unknown magic byte 0x7b"
                        + " (expected 0x00, Confluent wire format)");
    }

    @Test
    void truncatedBodyNamesTopicAndSchemaId() {
        byte[] bytes = valueSerde.serializer().serialize(TOPIC, ROTTERDAM_SCAN);
        int id = WireFormat.schemaId(bytes, TOPIC);
        byte[] truncated = Arrays.copyOf(bytes, bytes.length - 6);

        assertThatThrownBy(() -> valueSerde.deserializer().deserialize(TOPIC, truncated))
                .isInstanceOf(SerializationException.class)
                .hasMessageStartingWith("Cannot deserialize record from topic '" + TOPIC + "' with schema id " + id
                        + ": cannot decode the " + (truncated.length - 5) + "-byte Avro body");
    }

    @Test
    void trailingBytesAreRejectedNotIgnored() {
        byte[] bytes = valueSerde.serializer().serialize(TOPIC, ROTTERDAM_SCAN);
        byte[] padded = Arrays.copyOf(bytes, bytes.length + 3);

        assertThatThrownBy(() -> valueSerde.deserializer().deserialize(TOPIC, padded))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("with schema id " + WireFormat.schemaId(bytes, TOPIC))
                .hasMessageContaining("3 trailing bytes");
    }

    @Test
    void unknownSchemaIdNamesTheIdAndTheRegistryError() {
        byte[] bytes = WireFormat.frame(4711, new byte[] {2, 'x'});

        assertThatThrownBy(() -> valueSerde.deserializer().deserialize(TOPIC, bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessageStartingWith("Cannot deserialize record from topic '" + TOPIC + "' with schema id 4711:"
                        + " writer schema not found in the registry")
                .hasMessageContaining("40403");
    }

    @Test
    void v1RecordsReadAsV2WithTheNewFieldsDefaulted() {
        int v1Id = registry.register(TOPIC + "-value", Shipments.V1);
        byte[] v1Bytes = Shipments.framed(v1Id, Shipments.v1Scan("scan-v1", 900));

        ShipmentScanned read = valueSerde.deserializer().deserialize(TOPIC, v1Bytes);

        assertThat(read.getScanId()).isEqualTo("scan-v1");
        assertThat(read.getHub()).isEqualTo("DE-HAM");
        assertThat(read.getWeightGrams()).isEqualTo(900);
        assertThat(read.getAttempt()).as("default of the field added in v2").isEqualTo(1);
        assertThat(read.getNote()).isNull();
    }

    @Test
    void v2IsABackwardCompatibleSuccessorOfV1() {
        registry.register(TOPIC + "-value", Shipments.V1);

        byte[] v2Bytes = valueSerde.serializer().serialize(TOPIC, ROTTERDAM_SCAN);

        assertThat(registry.versions(TOPIC + "-value")).hasSize(2);
        assertThat(WireFormat.schemaId(v2Bytes, TOPIC)).isEqualTo(registry.getLatest(TOPIC + "-value").id());
    }

    @Test
    void writerTheReaderCannotResolveIsExplained() {
        int id = registry.register("elsewhere-value", Shipments.INCOMPATIBLE);
        org.apache.avro.generic.GenericRecord record = new org.apache.avro.generic.GenericData.Record(
                Shipments.INCOMPATIBLE);
        record.put("scanId", "s");
        record.put("parcelId", "p");
        record.put("hub", "h");
        record.put("weightGrams", "heavy");

        assertThatThrownBy(() -> valueSerde.deserializer().deserialize(TOPIC, Shipments.framed(id, record)))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("with schema id " + id)
                .hasMessageContaining("cannot be read as " + ShipmentScanned.class.getName())
                .hasMessageContaining("weightGrams");
    }

    @Test
    void incompatibleRegistrationIsRejectedWith409() {
        registry.register(TOPIC + "-value", ShipmentScanned.getClassSchema());

        assertThatThrownBy(() -> registry.register(TOPIC + "-value", Shipments.INCOMPATIBLE))
                .isInstanceOfSatisfying(SchemaRegistryException.class, e -> {
                    assertThat(e.errorCode()).isEqualTo(409);
                    assertThat(e.httpStatus()).isEqualTo(409);
                });
        assertThat(registry.testCompatibility(TOPIC + "-value", Shipments.INCOMPATIBLE)).isFalse();
        assertThat(registry.testCompatibility(TOPIC + "-value", Shipments.V1))
                .as("dropping fields is BACKWARD compatible: the new reader ignores nothing it needs")
                .isTrue();
    }

    @Test
    void withoutAutoRegisterTheSchemaMustAlreadyExist() {
        AvroSerializer<ShipmentScanned> lookupOnly =
                new AvroSerializer<>(registry, ShipmentScanned.class, false).autoRegister(false);

        assertThatThrownBy(() -> lookupOnly.serialize(TOPIC, ROTTERDAM_SCAN))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("topic '" + TOPIC + "'")
                .hasMessageContaining("subject '" + TOPIC + "-value'")
                .hasMessageContaining("40401");

        // As a deploy step would: from the .avsc, not from the generated class.
        int id = registry.register(TOPIC + "-value", Shipments.V2_AS_WRITTEN);
        assertThat(WireFormat.schemaId(lookupOnly.serialize(TOPIC, ROTTERDAM_SCAN), TOPIC)).isEqualTo(id);
        assertThat(registry.versions(TOPIC + "-value")).hasSize(1);
    }

    @Test
    void reRegisteringTheSameSchemaIsIdempotent() {
        int first = registry.register("a-value", ShipmentScanned.getClassSchema());
        int again = registry.register("a-value", new org.apache.avro.Schema.Parser()
                .parse(ShipmentScanned.getClassSchema().toString(true)));

        assertThat(again).isEqualTo(first);
        assertThat(registry.versions("a-value")).hasSize(1);
        assertThat(registry.register("b-value", Shipments.V1)).isNotEqualTo(first);
    }

    @Test
    void deserializerNeedsAReaderClassWhenConfiguredFromProperties() {
        AvroDeserializer<ShipmentScanned> deserializer = new AvroDeserializer<>();

        assertThatThrownBy(() -> deserializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "http://x:1"),
                false))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(AvroSerdeConfig.READER_CLASS);
        assertThatThrownBy(() -> deserializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "http://x:1",
                AvroSerdeConfig.READER_CLASS, String.class.getName()), false))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("not a SpecificRecord");
    }

    @Test
    void concurrentReadersAndWritersAgree() throws Exception {
        List<Callable<ShipmentScanned>> tasks = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            ShipmentScanned scan = ShipmentScanned.newBuilder(ROTTERDAM_SCAN).setScanId("scan-" + i).build();
            tasks.add(() -> valueSerde.deserializer().deserialize(TOPIC,
                    valueSerde.serializer().serialize(TOPIC, scan)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<ShipmentScanned>> results = pool.invokeAll(tasks, 30, TimeUnit.SECONDS);
            for (int i = 0; i < results.size(); i++) {
                assertThat(results.get(i).get().getScanId()).isEqualTo("scan-" + i);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(registry.versions(TOPIC + "-value")).hasSize(1);
    }
}
