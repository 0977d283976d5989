package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.VehicleTelemetry;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The MQTT target against the Mosquitto on this machine (127.0.0.1:1883): every generated reading arrives on its
 * vehicle's topic as the JSON ingest's bridge reads. Like ingest's MQTT test, it needs that broker: without one it
 * is skipped on a developer machine and fails under CI, where .ci/run starts Mosquitto.
 */
class MqttSinkTest {
    static final String URL = "tcp://127.0.0.1:1883";
    static final ObjectMapper JSON = new ObjectMapper();

    static boolean brokerUp() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 1883), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void everyReadingArrivesOnItsVehiclesTopic() throws Exception {
        String ci = System.getenv("CI");
        assumeTrue(brokerUp() || (ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false")),
                "no MQTT broker on 127.0.0.1:1883 (CI starts one)");
        // A fresh seed per run: the vehicles' ids then differ from any other publisher's on this broker.
        long seed = UUID.randomUUID().getMostSignificantBits();
        Generation g = Generator.generate(GeneratorConfig.defaults(seed, 3_000));
        List<GeneratedEvent> readings = g.events().stream().filter(e -> e.kind() == EventKind.VEHICLE_TELEMETRY).toList();
        assertThat(readings).hasSizeGreaterThan(50);
        Set<String> vehicles = ConcurrentHashMap.newKeySet();
        readings.forEach(e -> vehicles.add(e.key()));

        Map<String, JsonNode> received = new ConcurrentHashMap<>();
        CountDownLatch all = new CountDownLatch(readings.size());
        MqttClient subscriber = new MqttClient(URL, "streamhouse-test-" + UUID.randomUUID(), new MemoryPersistence());
        MqttConnectOptions options = new MqttConnectOptions();
        options.setCleanSession(true);
        subscriber.connect(options);
        try {
            subscriber.subscribe("fleet/+/telemetry", 1, (topic, message) -> {
                String vehicle = topic.split("/")[1];
                if (vehicles.contains(vehicle)) {
                    JsonNode body = JSON.readTree(message.getPayload());
                    if (received.putIfAbsent(body.get("eventId").asText(), body) == null) {
                        all.countDown();
                    }
                    assertThat(body.get("vehicleId").asText()).isEqualTo(vehicle);
                }
            });
            try (MqttSink sink = new MqttSink(URL, 50)) {
                var result = SinkRun.send(g, sink, EnumSet.of(EventKind.VEHICLE_TELEMETRY), Duration.ofSeconds(60), null);
                assertThat(result.sent()).isEqualTo(readings.size());
            }
            assertThat(all.await(30, TimeUnit.SECONDS)).as("all %d readings received", readings.size()).isTrue();
        } finally {
            subscriber.disconnect();
            subscriber.close();
        }
        for (GeneratedEvent e : readings) {
            VehicleTelemetry t = (VehicleTelemetry) e.value();
            JsonNode body = received.get(e.eventId());
            assertThat(body).as(e.eventId()).isNotNull();
            assertThat(body.get("speedKmh").asDouble()).isEqualTo(t.getSpeedKmh());
        }
    }

    @Test
    void refusesNonLoopbackBrokersAndOtherKinds() {
        assertThatThrownBy(() -> new MqttSink("tcp://mqtt.example.com:1883", 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loopback");
        assertThatThrownBy(() -> new MqttSink("ssl://127.0.0.1:8883", 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tcp://");
    }
}
