package io.streamhouse.lakequery;

import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.topic.Topics;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The Avro → Flink SQL mapping on the domain's own events: every field readable, unions as SQL can see them. */
class AvroRowsTest {

    @Test
    void everyTopicsValueSchemaMapsToSqlTypesWithoutOpaqueValues() {
        for (var topic : Topics.all()) {
            DataType type = AvroRows.dataType(RegistryAvroFormatFactory.readerSchema(topic.valueType().getName()));
            assertThat(type.getLogicalType().getTypeRoot()).as(topic.name()).isEqualTo(LogicalTypeRoot.ROW);
            assertThat(type.toString()).as(topic.name()).doesNotContain("RAW");
        }
    }

    @Test
    void aMultiBranchUnionIsARowWithTheBranchThatIsSet() throws IOException {
        CustomerEvent event = (CustomerEvent) SampleEvents.oneOfEach().stream().filter(e -> e instanceof CustomerEvent)
                .findFirst().orElseThrow();
        Row row = roundTrip(event);
        Row change = (Row) row.getField("change");
        assertThat(change.getField("CustomerAddressChanged")).isNotNull();
        assertThat(change.getField("CustomerRegistered")).isNull();
        assertThat(change.getField("CustomerDeleted")).isNull();
        Row address = (Row) ((Row) change.getField("CustomerAddressChanged")).getField("current");
        assertThat(address.getField("city")).isEqualTo("Rotterdam");
        assertThat(((Row) row.getField("envelope")).getField("occurredAt")).isEqualTo(event.getEnvelope().getOccurredAt());
    }

    @Test
    void decimalsStayExactAndTimestampsAreInstants() throws IOException {
        TransactionAuthorizationRequested tx = (TransactionAuthorizationRequested) SampleEvents.oneOfEach().stream()
                .filter(e -> e instanceof TransactionAuthorizationRequested).findFirst().orElseThrow();
        Row row = roundTrip(tx);
        assertThat(((Row) row.getField("amount")).getField("amount")).isEqualTo(new BigDecimal("12.5000"));
        assertThat(((Row) row.getField("envelope")).getField("recordedAt")).isInstanceOf(Instant.class)
                .isEqualTo(tx.getEnvelope().getRecordedAt());
    }

    /** Writes the record as Avro binary, reads it back as generic data, converts it as the format does. */
    private static Row roundTrip(SpecificRecord record) throws IOException {
        Schema schema = record.getSchema();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        new SpecificDatumWriter<SpecificRecord>(schema).write(record, encoder);
        encoder.flush();
        Object generic = new GenericDatumReader<>(schema, schema, new GenericData())
                .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
        DataType type = AvroRows.dataType(schema);
        @SuppressWarnings("unchecked")
        DataStructureConverter<Object, Object> converter = (DataStructureConverter<Object, Object>) DataStructureConverters.getConverter(type);
        converter.open(AvroRowsTest.class.getClassLoader());
        return (Row) converter.toExternal(AvroRows.toInternal(schema, generic));
    }
}
