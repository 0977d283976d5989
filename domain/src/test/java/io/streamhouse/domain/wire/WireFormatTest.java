package io.streamhouse.domain.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class WireFormatTest {

    @Test
    void frameWritesMagicByteThenBigEndianIdThenBody() {
        byte[] framed = WireFormat.frame(0x01020304, new byte[] {9, 8});

        assertThat(framed).containsExactly(0, 1, 2, 3, 4, 9, 8);
        assertThat(WireFormat.schemaId(framed, "t")).isEqualTo(0x01020304);
    }

    @Test
    void idsAboveOneByteSurviveTheRoundTrip() {
        assertThat(WireFormat.schemaId(WireFormat.header(70_000), "t")).isEqualTo(70_000);
        assertThat(WireFormat.schemaId(WireFormat.header(Integer.MAX_VALUE), "t")).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void jsonInsteadOfAvroIsReportedAsUnknownMagicByte() {
        byte[] json = "{\"scanId\":\"x\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);

        assertThatThrownBy(() -> WireFormat.schemaId(json, "x"))
                .isInstanceOf(SerializationException.class)
                .hasMessage("Cannot deserialize record from topic 'x': unknown magic byte 0x7b"
                        + " (expected 0x00, Confluent wire format)");
    }

    @Test
    void emptyPayloadIsRejectedWithTheTopic() {
        assertThatThrownBy(() -> WireFormat.schemaId(new byte[0], "parcels"))
                .isInstanceOf(SerializationException.class)
                .hasMessageStartingWith("Cannot deserialize record from topic 'parcels': empty payload");
    }

    @Test
    void headerShorterThanFiveBytesIsRejected() {
        assertThatThrownBy(() -> WireFormat.schemaId(new byte[] {0, 0, 1}, "parcels"))
                .isInstanceOf(SerializationException.class)
                .hasMessage("Cannot deserialize record from topic 'parcels': truncated header, payload has 3 bytes"
                        + " but the magic byte and schema id need 5");
    }
}
