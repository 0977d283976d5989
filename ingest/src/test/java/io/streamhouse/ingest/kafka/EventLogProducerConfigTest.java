package io.streamhouse.ingest.kafka;

import io.streamhouse.ingest.IngestConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventLogProducerConfigTest {

    @Test
    void theProducerKeepsAnEventLongerThanItsRequestWaits() {
        Map<String, Object> config = EventLog.producerConfig(settings(Duration.ofSeconds(10), Duration.ofMinutes(2)));

        // A request answered 503 after 10 s leaves its event with the producer, which retries it (idempotently) for
        // two minutes: a retried request then waits for that write instead of writing a second copy.
        assertThat(config).containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000)
                .containsEntry(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000)
                .containsEntry(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000L)
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all");
    }

    @Test
    void aDeliveryTimeoutShorterThanThePublishTimeoutStopsTheBoot() {
        assertThatThrownBy(() -> EventLog.producerConfig(settings(Duration.ofSeconds(10), Duration.ofSeconds(5))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("streamhouse.delivery-timeout");
    }

    /** Only the three settings the producer's timeouts come from; anything else is not asked for. */
    private static IngestConfig settings(Duration publish, Duration delivery) {
        return (IngestConfig) Proxy.newProxyInstance(IngestConfig.class.getClassLoader(), new Class<?>[]{IngestConfig.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "publishTimeout" -> publish;
                    case "deliveryTimeout" -> delivery;
                    case "publishBlock" -> Duration.ofSeconds(2);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
