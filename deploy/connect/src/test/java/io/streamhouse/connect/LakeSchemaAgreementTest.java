package io.streamhouse.connect;

import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.domain.wire.WireFormat;
import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.lake.LakeSchemas;
import io.streamhouse.lake.LakeTables;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.transforms.InsertField;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The lake's tables are created from the Avro schemas (LakeSchemas) while the sink sees the Connect schema the
 * converter derives from the same Avro (ConnectAvro) plus InsertField's metadata: the two must agree field by
 * field (name, optionality, kind), or the sink would evolve the table on its first record or fail to write it.
 */
class LakeSchemaAgreementTest {

    private static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");

    @Test
    void everyLandedTopicsConnectSchemaMatchesItsTableColumnForColumn() {
        for (var topic : LakeNames.landed()) {
            org.apache.avro.Schema avro = LakeTables.valueSchema(topic);
            Schema value = new ConnectAvro().toConnectSchema(avro);
            Schema withMetadata = withMetadata(value);
            org.apache.iceberg.Schema table = LakeSchemas.tableSchema(avro);
            assertAgree(topic.name(), withMetadata, table.asStruct());
        }
    }

    @Test
    void aMultiBranchUnionIsReadAsAStructWithTheOneBranchSet() throws Exception {
        InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
        RegistryAvroConverter converter = new RegistryAvroConverter(registry);
        converter.configure(Map.of(), false);
        Envelope envelope = Envelope.newBuilder().setEventId("e-1").setKey("c-1").setOccurredAt(T0).setRecordedAt(T0)
                .setSource("test").setSchemaVersion(1).build();
        CustomerEvent registered = CustomerEvent.newBuilder().setEnvelope(envelope).setCustomerId("c-1")
                .setChange(CustomerRegistered.newBuilder().setEmail("a@b.c").setFullName("A B").setRegisteredAt(T0)
                        .setAddress(Address.newBuilder().setLine1("l").setCity("c").setPostalCode("p").setCountry("NL").build())
                        .build()).build();
        Struct change = (Struct) ((Struct) converter.toConnectData("shop.customers", bytes(registry, registered)).value()).get("change");
        assertThat(change.schema().name()).isEqualTo(ConnectAvro.UNION_NAME);
        assertThat(change.getStruct("CustomerRegistered").getString("email")).isEqualTo("a@b.c");
        assertThat(change.getStruct("CustomerRegistered").get("registeredAt")).isEqualTo(java.util.Date.from(T0));
        assertThat(change.get("CustomerDeleted")).isNull();

        CustomerEvent deleted = CustomerEvent.newBuilder(registered).setChange(CustomerDeleted.newBuilder().setReason(null).build()).build();
        SchemaAndValue back = converter.toConnectData("shop.customers", bytes(registry, deleted));
        Struct deletedChange = ((Struct) back.value()).getStruct("change");
        assertThat(deletedChange.getStruct("CustomerDeleted")).isNotNull();
        assertThat(deletedChange.get("CustomerRegistered")).isNull();

        assertThatThrownBy(() -> converter.fromConnectData("t", back.schema(), back.value()))
                .isInstanceOf(DataException.class).hasMessageContaining("union");
    }

    private static byte[] bytes(InMemorySchemaRegistryClient registry, CustomerEvent event) throws Exception {
        int id = registry.register(Topics.CUSTOMERS.name() + "-value", CustomerEvent.getClassSchema());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(WireFormat.header(id));
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        new SpecificDatumWriter<>(CustomerEvent.class).write(event, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    /**
     * The value schema as the sink sees it: after the connector's InsertField transform (applied to a one-field
     * probe, whose added fields are appended to the value's: InsertField appends them the same way).
     */
    private static Schema withMetadata(Schema value) {
        InsertField.Value<SinkRecord> insert = new InsertField.Value<>();
        Map<String, String> c = LakeConnector.config(LakeConnector.settings(Map.of("k", "v"), "b:1", "http://r", "id"));
        Map<String, String> props = new java.util.HashMap<>();
        c.forEach((k, v) -> {
            if (k.startsWith("transforms.meta.") && !k.equals("transforms.meta.type")) {
                props.put(k.substring("transforms.meta.".length()), v);
            }
        });
        insert.configure(props);
        Schema probe = org.apache.kafka.connect.data.SchemaBuilder.struct().field("probe", Schema.OPTIONAL_STRING_SCHEMA).build();
        SinkRecord record = new SinkRecord("t", 0, null, null, probe, new Struct(probe), 0, 0L,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME);
        Schema added = insert.apply(record).valueSchema();
        org.apache.kafka.connect.data.SchemaBuilder out = org.apache.kafka.connect.data.SchemaBuilder.struct();
        value.fields().forEach(f -> out.field(f.name(), f.schema()));
        added.fields().stream().filter(f -> !f.name().equals("probe")).forEach(f -> out.field(f.name(), f.schema()));
        return out.build();
    }

    private static void assertAgree(String path, Schema connect, Types.StructType table) {
        assertThat(connect.fields()).as(path).extracting(f -> f.name())
                .containsExactlyElementsOf(table.fields().stream().map(Types.NestedField::name).toList());
        for (org.apache.kafka.connect.data.Field f : connect.fields()) {
            Types.NestedField column = table.field(f.name());
            assertThat(column.isOptional()).as(path + "." + f.name() + " optional").isEqualTo(f.schema().isOptional());
            assertAgree(path + "." + f.name(), f.schema(), column.type());
        }
    }

    private static void assertAgree(String path, Schema connect, Type type) {
        switch (connect.type()) {
            case STRUCT -> assertAgree(path, connect, type.asStructType());
            case ARRAY -> {
                assertThat(type.typeId()).as(path).isEqualTo(Type.TypeID.LIST);
                assertThat(type.asListType().isElementOptional()).as(path + "[] optional").isEqualTo(connect.valueSchema().isOptional());
                assertAgree(path + "[]", connect.valueSchema(), type.asListType().elementType());
            }
            case MAP -> {
                assertThat(type.typeId()).as(path).isEqualTo(Type.TypeID.MAP);
                assertAgree(path + "{}", connect.valueSchema(), type.asMapType().valueType());
            }
            case STRING -> assertThat(type.typeId()).as(path).isEqualTo(Type.TypeID.STRING);
            case BOOLEAN -> assertThat(type.typeId()).as(path).isEqualTo(Type.TypeID.BOOLEAN);
            case INT32 -> assertThat(type.typeId()).as(path).isIn(Type.TypeID.INTEGER, Type.TypeID.DATE, Type.TypeID.TIME);
            case INT64 -> {
                if (org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME.equals(connect.name())) {
                    assertThat(type).as(path).isEqualTo(Types.TimestampType.withZone());
                } else {
                    assertThat(type.typeId()).as(path).isEqualTo(Type.TypeID.LONG);
                }
            }
            case FLOAT32 -> assertThat(type.typeId()).as(path).isEqualTo(Type.TypeID.FLOAT);
            case FLOAT64 -> assertThat(type.typeId()).as(path).isEqualTo(Type.TypeID.DOUBLE);
            case BYTES -> {
                if (org.apache.kafka.connect.data.Decimal.LOGICAL_NAME.equals(connect.name())) {
                    Types.DecimalType d = (Types.DecimalType) type;
                    assertThat(d.scale()).as(path).isEqualTo(Integer.parseInt(connect.parameters().get("scale")));
                    assertThat(d.precision()).as(path).isEqualTo(Integer.parseInt(connect.parameters().get("connect.decimal.precision")));
                } else {
                    assertThat(type.typeId()).as(path).isIn(Type.TypeID.BINARY, Type.TypeID.FIXED);
                }
            }
            default -> throw new AssertionError(path + ": unexpected Connect type " + connect.type());
        }
    }
}
