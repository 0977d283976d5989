package io.streamhouse.ingest.mqtt;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.testing.LogRecords;
import io.streamhouse.ingest.testing.MosquittoResource;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;

import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * MQTT round trip through the Mosquitto on this machine: a plain MQTT client publishes on this run's vehicle topic
 * (see {@link MosquittoResource}), and the readings are looked for on the telemetry topic and its dead-letter topic.
 * Skips when no broker answers on a developer machine; fails when CI is set (CI has Mosquitto).
 */
@QuarkusTest
@QuarkusTestResource(value = MosquittoResource.class, restrictToAnnotatedClass = false)
class MqttTelemetryBridgeIT {
    static final String VEHICLE = MosquittoResource.VEHICLE;

    @Inject
    MqttTelemetryBridge bridge;

    MqttClient device;

    @BeforeEach
    void brokerAndSubscribedBridge() throws MqttException {
        if (!MosquittoResource.reachable()) {
            if (MosquittoResource.ci()) {
                fail("CI is set but no MQTT broker answers at " + MosquittoResource.URL + ": CI must run Mosquitto");
            }
            assumeTrue(false, "No MQTT broker at " + MosquittoResource.URL + " (install mosquitto or set "
                    + "STREAMHOUSE_TEST_MQTT_URL): MQTT round trip skipped here; with CI set it fails instead");
        }
        await("the bridge subscribed to " + MosquittoResource.TOPIC).atMost(Duration.ofSeconds(30)).until(bridge::isSubscribed);
        device = new MqttClient(MosquittoResource.URL, "device-" + UUID.randomUUID(), new MemoryPersistence());
        var options = new MqttConnectOptions();
        options.setCleanSession(true);
        device.connect(options);
    }

    @AfterEach
    void disconnect() throws MqttException {
        if (device != null) {
            device.disconnect();
            device.close();
        }
    }

    void publish(byte[] payload) throws MqttException {
        device.publish(MosquittoResource.TOPIC, payload, 1, false);
    }

    static byte[] reading(String occurredAt, String extra) {
        return ("""
                {"occurredAt": "%s", "position": {"lat": 51.92, "lon": 4.47}, "speedKmh": 64,
                 "coolantTempC": 96.5, "odometerKm": 80211%s}""".formatted(occurredAt, extra)).getBytes(StandardCharsets.UTF_8);
    }

    static String header(ConsumerRecord<String, byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Test
    void aGoodReadingReachesTheTelemetryTopicAndABadOneTheDeadLetterTopicByteForByteWithItsReason() throws Exception {
        byte[] good = reading("2026-03-02T09:00:00Z", "");
        byte[] bad = reading("2026-03-02T09:00:01Z", ", \"vehicleId\": \"someone-else\", \"faultCodes\": [\"Q1234\"]");
        byte[] notJson = "{speed: fast".getBytes(StandardCharsets.UTF_8);
        publish(good);
        publish(bad);
        publish(notJson);

        var written = LogRecords.awaitOne(Topics.VEHICLE_TELEMETRY, r -> VEHICLE.equals(r.key()));
        var event = LogRecords.decode(Topics.VEHICLE_TELEMETRY, written.value());
        assertThat(event.getVehicleId()).as("taken from the topic").isEqualTo(VEHICLE);
        assertThat(event.getSpeedKmh()).isEqualTo(64);
        assertThat(event.getEnvelope().getSource()).isEqualTo("ingest-mqtt");
        assertThat(event.getEnvelope().getOccurredAt()).isEqualTo(java.time.Instant.parse("2026-03-02T09:00:00Z"));

        var deadLetters = Topics.deadLetterOf(Topics.VEHICLE_TELEMETRY);
        var deadBad = LogRecords.awaitOne(deadLetters, r -> Arrays.equals(r.value(), bad));
        assertThat(header(deadBad, DeadLetterHeaders.MQTT_TOPIC)).isEqualTo(MosquittoResource.TOPIC);
        assertThat(header(deadBad, DeadLetterHeaders.PROCESSOR)).isEqualTo(TelemetryMessages.PROCESSOR);
        assertThat(header(deadBad, DeadLetterHeaders.REASON)).contains("vehicleId").contains("someone-else")
                .contains("faultCodes[0]");

        var deadNotJson = LogRecords.awaitOne(deadLetters, r -> Arrays.equals(r.value(), notJson)
                && MosquittoResource.TOPIC.equals(header(r, DeadLetterHeaders.MQTT_TOPIC)));
        assertThat(header(deadNotJson, DeadLetterHeaders.REASON)).startsWith("not valid JSON");
    }

    @Test
    void theMqttHealthGroupSaysTheBridgeIsSubscribed() {
        given().auth().oauth2(TestTokens.forRole(Roles.OPS)).get("/q/health/group/mqtt").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks[0].data.topicFilter", equalTo(MosquittoResource.TOPIC));
    }

    @Test
    void aReadingSentTwiceIsWrittenOnce() throws Exception {
        byte[] twice = reading("2026-03-02T10:00:00Z", "");
        byte[] after = reading("2026-03-02T10:00:05Z", "");
        publish(twice);
        publish(twice);
        publish(after);

        // Messages of one subscription are handled in order: once the last is on the log, both copies were handled.
        String afterId = Envelopes.derivedEventId("vehicle-telemetry", VEHICLE + "@2026-03-02T10:00:05Z");
        LogRecords.awaitOne(Topics.VEHICLE_TELEMETRY, r -> VEHICLE.equals(r.key())
                && afterId.equals(LogRecords.decode(Topics.VEHICLE_TELEMETRY, r.value()).getEnvelope().getEventId()));
        String twiceId = Envelopes.derivedEventId("vehicle-telemetry", VEHICLE + "@2026-03-02T10:00:00Z");
        assertThat(LogRecords.countByEventId(Topics.VEHICLE_TELEMETRY, twiceId)).isEqualTo(1);
    }
}
