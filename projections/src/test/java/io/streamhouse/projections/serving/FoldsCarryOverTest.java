package io.streamhouse.projections.serving;

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
 * The parcel fold copies the previous state field by field (to share, not deep-copy, the history). A field added to
 * the {@code ParcelTracking} schema and not added to that copy would be silently reset on the next scan: this test
 * fills every field of the schema, whatever it holds, with random values and expects all of them carried over.
 */
class FoldsCarryOverTest {

    @Test
    void everyFieldOfTheSchemaIsCarriedOver() throws IOException {
        int checked = 0;
        for (Object random : new RandomData(ParcelTracking.getClassSchema(), 50, 7L)) {
            ParcelTracking previous = asSpecific((GenericRecord) random);
            ParcelTracking carried = Folds.carriedOver(previous).build();
            assertThat(carried).as("carried over from %s", previous).isEqualTo(previous);
            checked++;
        }
        assertThat(checked).isEqualTo(50);
    }

    private static ParcelTracking asSpecific(GenericRecord generic) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(generic.getSchema()).write(generic, encoder);
        encoder.flush();
        return new SpecificDatumReader<>(ParcelTracking.class)
                .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    }
}
