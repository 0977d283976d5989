package io.streamhouse.lake;

import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import org.apache.avro.SchemaBuilder;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LakeSchemasTest {

    @Test
    void exactDecimalsZonedTimestampsOptionalsAndMetadataColumns() {
        Schema s = LakeSchemas.tableSchema(LakeTables.valueSchema(Topics.TRANSACTION_REQUESTS));
        assertThat(s.findType("amount.amount")).isEqualTo(Types.DecimalType.of(19, 4));
        assertThat(s.findType("envelope.occurredAt")).isEqualTo(Types.TimestampType.withZone());
        assertThat(s.findField("envelope.occurredAt").isRequired()).isTrue();
        assertThat(s.findType("channel")).isEqualTo(Types.StringType.get());
        assertThat(s.findField("customerId").isOptional()).isTrue();
        assertThat(s.findField("location").isOptional()).isTrue();
        assertThat(s.findType("location.lat")).isEqualTo(Types.DoubleType.get());
        assertThat(s.findField("_topic").type()).isEqualTo(Types.StringType.get());
        assertThat(s.findField("_partition").type()).isEqualTo(Types.IntegerType.get());
        assertThat(s.findField("_offset").type()).isEqualTo(Types.LongType.get());
        assertThat(s.findField("_kafka_timestamp").type()).isEqualTo(Types.TimestampType.withZone());
        Schema decisions = LakeSchemas.tableSchema(LakeTables.valueSchema(Topics.TRANSACTION_DECISIONS));
        assertThat(decisions.findType("reasons").typeId()).isEqualTo(Type.TypeID.LIST);
        assertThat(decisions.findType("reasons.element.facts")).isInstanceOf(Types.MapType.class);
    }

    @Test
    void multiBranchUnionsBecomeAStructOfOptionalBranches() {
        Schema s = LakeSchemas.tableSchema(LakeTables.valueSchema(Topics.CUSTOMERS));
        Types.StructType change = s.findType("change").asStructType();
        assertThat(change.fields()).extracting(Types.NestedField::name)
                .containsExactly("CustomerRegistered", "CustomerAddressChanged", "CustomerEmailChanged", "CustomerDeleted");
        assertThat(change.fields()).allMatch(Types.NestedField::isOptional);
        assertThat(s.findField("change").isRequired()).isTrue();
        assertThat(s.findType("change.CustomerRegistered.registeredAt")).isEqualTo(Types.TimestampType.withZone());
        Schema orders = LakeSchemas.tableSchema(LakeTables.valueSchema(Topics.ORDERS));
        assertThat(orders.findType("change.OrderPlaced.total.amount")).isEqualTo(Types.DecimalType.of(19, 4));
        assertThat(orders.findType("change.OrderStatusChanged.previous")).isEqualTo(Types.StringType.get());

        org.apache.avro.Schema mixed = SchemaBuilder.record("M").fields().name("v").type().unionOf()
                .nullType().and().stringType().and().longType().endUnion().nullDefault().endRecord();
        Schema m = LakeSchemas.tableSchema(mixed);
        assertThat(m.findField("v").isOptional()).isTrue();
        assertThat(m.findType("v").asStructType().fields()).extracting(Types.NestedField::name).containsExactly("string", "long");
    }

    @Test
    void everyLandedTopicHasATablePartitionedByEventDay() {
        for (Topic<String, ?> topic : LakeNames.landed()) {
            Schema s = LakeSchemas.tableSchema(LakeTables.valueSchema(topic));
            PartitionSpec spec = LakeSchemas.daySpec(s, LakeNames.eventTimeColumn(topic));
            assertThat(spec.fields()).hasSize(1);
            assertThat(spec.fields().get(0).transform().toString()).isEqualTo("day");
            assertThat(s.findColumnName(spec.fields().get(0).sourceId())).isEqualTo(LakeNames.eventTimeColumn(topic));
        }
        assertThat(LakeNames.qualifiedTableName("payments.transactions.decisions"))
                .isEqualTo("streamhouse.payments_transactions_decisions");
    }

    @Test
    void recursiveTypesAndNonRecordsAreRefused() {
        org.apache.avro.Schema node = new org.apache.avro.Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"Node\",\"fields\":[{\"name\":\"next\",\"type\":[\"null\",\"Node\"]}]}");
        assertThatThrownBy(() -> LakeSchemas.tableSchema(node)).hasMessageContaining("recursive");
        assertThatThrownBy(() -> LakeSchemas.tableSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.STRING)))
                .hasMessageContaining("record");
    }

    @Test
    void ensureCreatesOnceAndAddsTheColumnsOfANewerSchema() throws Exception {
        try (InMemoryCatalog catalog = new InMemoryCatalog()) {
            catalog.initialize("lake", Map.of());
            LakeTables.Outcome first = LakeTables.ensure(catalog, LakeNames.landed());
            assertThat(first.created()).hasSize(LakeNames.landed().size())
                    .contains("streamhouse.payments_transactions_decisions", "streamhouse.shop_customers");
            LakeTables.Outcome again = LakeTables.ensure(catalog, LakeNames.landed());
            assertThat(again.unchanged()).hasSize(LakeNames.landed().size());
            assertThat(again.created()).isEmpty();

            TableIdentifier rules = TableIdentifier.of("streamhouse", "rules_definitions");
            org.apache.avro.Schema v1 = LakeTables.valueSchema(Topics.RULES);
            org.apache.avro.Schema v2 = withOptionalField(v1, "owner");
            Schema schema = LakeSchemas.tableSchema(v2);
            assertThat(LakeTables.ensure(catalog, rules, schema, LakeSchemas.daySpec(schema, LakeNames.ENVELOPE_EVENT_TIME)))
                    .isEqualTo(LakeTables.Change.EVOLVED);
            assertThat(catalog.loadTable(rules).schema().findField("owner").isOptional()).isTrue();
            assertThat(catalog.loadTable(rules).spec().fields().get(0).name()).isEqualTo("event_day");
        }
    }

    static org.apache.avro.Schema withOptionalField(org.apache.avro.Schema v1, String name) {
        java.util.List<org.apache.avro.Schema.Field> fields = new java.util.ArrayList<>();
        for (org.apache.avro.Schema.Field f : v1.getFields()) {
            fields.add(new org.apache.avro.Schema.Field(f, f.schema()));
        }
        fields.add(new org.apache.avro.Schema.Field(name, org.apache.avro.Schema.createUnion(
                org.apache.avro.Schema.create(org.apache.avro.Schema.Type.NULL),
                org.apache.avro.Schema.create(org.apache.avro.Schema.Type.STRING)), null, org.apache.avro.Schema.Field.NULL_DEFAULT_VALUE));
        return org.apache.avro.Schema.createRecord(v1.getName(), v1.getDoc(), v1.getNamespace(), false, fields);
    }
}
