package io.streamhouse.api;

import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.SharedPlatform;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.Map;

import static io.restassured.RestAssured.get;
import static org.awaitility.Awaitility.await;

/** Writes authorization requests to the shared platform's log as a producer outside the app would. */
final class RequestLog {

    static void send(String key, byte[] value) throws Exception {
        send(key, value, Map.of());
    }

    /** With headers, such as the {@code traceparent} ingest's producer writes. */
    static void send(String key, byte[] value, Map<String, String> headers) throws Exception {
        awaitReady();
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedPlatform.get().bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer())) {
            var record = new ProducerRecord<>(Topics.TRANSACTION_REQUESTS.name(), key, value);
            headers.forEach((k, v) -> record.headers().add(k, v.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            producer.send(record).get();
        }
    }

    /** Sends the request keyed by its card token, as the topic's contract says. */
    static void send(TransactionAuthorizationRequested request) throws Exception {
        send(request.getCardToken(), avro(request));
    }

    static byte[] avro(TransactionAuthorizationRequested request) {
        var client = new CachingSchemaRegistryClient(SharedPlatform.get().schemaRegistryUrl().toString());
        return new AvroSerializer<>(client, TransactionAuthorizationRequested.class, false)
                .serialize(Topics.TRANSACTION_REQUESTS.name(), request);
    }

    static void awaitReady() {
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> get("/q/health/ready").then().statusCode(200));
    }

    private RequestLog() {
    }
}
