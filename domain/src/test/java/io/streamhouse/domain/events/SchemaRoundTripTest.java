package io.streamhouse.domain.events;

import io.streamhouse.domain.testdata.SampleEvents;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class SchemaRoundTripTest {

    @Test
    void everyEventTypeHasASample() {
        var sampled = SampleEvents.oneOfEach().stream().map(Object::getClass).collect(Collectors.toSet());
        var declared = EventTypes.all().stream().map(EventTypes::type).collect(Collectors.toSet());
        assertThat(sampled).containsExactlyInAnyOrderElementsOf(declared);
    }

    @Test
    void everyEventSurvivesABinaryRoundTripUnchanged() throws IOException {
        for (SpecificRecord event : SampleEvents.oneOfEach()) {
            assertThat(roundTrip(event)).as(event.getSchema().getName()).isEqualTo(event);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecord> T roundTrip(T event) throws IOException {
        var out = new ByteArrayOutputStream();
        var encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<T>(event.getSchema()).write(event, encoder);
        encoder.flush();
        var reader = new SpecificDatumReader<T>((Class<T>) event.getClass());
        return reader.read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
    }
}
