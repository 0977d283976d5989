package io.streamhouse.projections.serving;

import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.state.ParcelTracking;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.util.RandomData;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parcel and customer folds copy the previous state field by field (to share, not deep-copy, its lists). A field
 * added to the {@code ParcelTracking} or {@code CustomerState} schema and not added to that copy would be silently
 * reset on the next event: this test fills every field of the schema, whatever it holds, with random values and
 * expects all of them carried over.
 */
class FoldsCarryOverTest {

    @Test
    void everyFieldOfTheSchemaIsCarriedOver() throws IOException {
        int checked = 0;
        for (Object random : new RandomData(ParcelTracking.getClassSchema(), 50, 7L)) {
            ParcelTracking previous = asSpecific((GenericRecord) random, ParcelTracking.class);
            ParcelTracking carried = Folds.carriedOver(previous).build();
            assertThat(carried).as("carried over from %s", previous).isEqualTo(previous);
            checked++;
        }
        assertThat(checked).isEqualTo(50);
    }

    @Test
    void everyFieldOfTheCustomerStateIsCarriedOver() throws IOException {
        int checked = 0;
        for (Object random : new RandomData(CustomerState.getClassSchema(), 50, 7L)) {
            CustomerState previous = asSpecific((GenericRecord) withoutEmptyBytes(random), CustomerState.class);
            CustomerState carried = Folds.carriedOver(previous).build();
            assertThat(carried).as("carried over from %s", previous).isEqualTo(previous);
            checked++;
        }
        assertThat(checked).isEqualTo(50);
    }

    /** RandomData may give a decimal (Money's amount) no bytes at all, which is no number: one byte instead. */
    private static Object withoutEmptyBytes(Object value) {
        if (value instanceof GenericRecord r) {
            r.getSchema().getFields().forEach(f -> r.put(f.pos(), withoutEmptyBytes(r.get(f.pos()))));
        } else if (value instanceof java.util.List<?> list) {
            @SuppressWarnings("unchecked") java.util.List<Object> items = (java.util.List<Object>) list;
            items.replaceAll(FoldsCarryOverTest::withoutEmptyBytes);
        } else if (value instanceof java.nio.ByteBuffer bytes && !bytes.hasRemaining()) {
            return java.nio.ByteBuffer.wrap(new byte[]{1});
        }
        return value;
    }

    private static <T> T asSpecific(GenericRecord generic, Class<T> type) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(generic.getSchema()).write(generic, encoder);
        encoder.flush();
        return new SpecificDatumReader<>(type)
                .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    }
}
