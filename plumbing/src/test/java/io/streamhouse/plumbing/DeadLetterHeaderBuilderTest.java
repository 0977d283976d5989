package io.streamhouse.plumbing;

import io.streamhouse.domain.topic.DeadLetterHeaders;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DeadLetterHeaderBuilderTest {

    @Test
    void writes_every_header_in_the_order_given_over_the_records_own() {
        Headers original = new RecordHeaders();
        original.add("traceparent", "00-abc".getBytes(StandardCharsets.UTF_8));
        original.add(DeadLetterHeaders.REASON, "an older reason".getBytes(StandardCharsets.UTF_8));
        byte[] wire = {0, 0, 0, 0, 42, 7, 7};

        Headers headers = DeadLetterHeaderBuilder.because("unreadable").exception(new IllegalStateException("x"))
                .source("payments.transactions.requested", 3, 1234L).processor("decisions-decode").schemaIdOf(wire)
                .onto(original);

        assertThat(Arrays.stream(headers.toArray()).map(Header::key).toList()).containsExactly("traceparent",
                DeadLetterHeaders.REASON, DeadLetterHeaders.EXCEPTION, DeadLetterHeaders.SOURCE_TOPIC,
                DeadLetterHeaders.SOURCE_PARTITION, DeadLetterHeaders.SOURCE_OFFSET, DeadLetterHeaders.PROCESSOR,
                DeadLetterHeaders.SCHEMA_ID);
        assertThat(text(headers, DeadLetterHeaders.REASON)).isEqualTo("unreadable");
        assertThat(text(headers, DeadLetterHeaders.EXCEPTION)).isEqualTo(IllegalStateException.class.getName());
        assertThat(text(headers, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("3");
        assertThat(text(headers, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("1234");
        assertThat(text(headers, DeadLetterHeaders.SCHEMA_ID)).isEqualTo("42");
        assertThat(original.toArray()).hasSize(2);
    }

    @Test
    void leaves_out_what_is_not_known() {
        var builder = DeadLetterHeaderBuilder.because("no table").exception((Throwable) null).exception((String) null)
                .schemaIdOf(new byte[]{1, 0, 0, 0, 9}).schemaIdOf(null).schemaId(null).mqttTopic("fleet/t-1/telemetry");

        assertThat(builder.asMap()).containsExactly(
                java.util.Map.entry(DeadLetterHeaders.REASON, "no table"),
                java.util.Map.entry(DeadLetterHeaders.MQTT_TOPIC, "fleet/t-1/telemetry"));
        assertThat(List.of(builder.toHeaders().toArray())).hasSize(2);
    }

    private static String text(Headers headers, String name) {
        return new String(headers.lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
