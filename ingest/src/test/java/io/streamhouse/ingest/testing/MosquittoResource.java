package io.streamhouse.ingest.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.UUID;

/**
 * Points the app's MQTT bridge at the Mosquitto on this machine (127.0.0.1:1883, or {@code STREAMHOUSE_TEST_MQTT_URL}),
 * subscribed only to this run's vehicle, so that concurrent runs and other publishers on the same broker neither
 * steal nor feed this run's messages. When no broker answers, the bridge stays off and the MQTT tests skip — unless
 * {@code CI} is set: CI has Mosquitto, so there the bridge is configured anyway and the tests fail loudly.
 */
public class MosquittoResource implements QuarkusTestResourceLifecycleManager {
    public static final String URL = System.getenv().getOrDefault("STREAMHOUSE_TEST_MQTT_URL", "tcp://127.0.0.1:1883");
    /** Unique per test JVM: the vehicle this run's MQTT messages are about. */
    public static final String VEHICLE = "mqtt-it-" + UUID.randomUUID().toString().substring(0, 8);
    public static final String TOPIC = "fleet/" + VEHICLE + "/telemetry";

    public static boolean ci() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false");
    }

    public static boolean reachable() {
        var uri = java.net.URI.create(URL);
        try (var socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 1883 : uri.getPort()), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public Map<String, String> start() {
        if (!reachable() && !ci()) {
            return Map.of();
        }
        return Map.of(
                "streamhouse.mqtt.url", URL,
                "streamhouse.mqtt.instance-id", "test-" + VEHICLE,
                "streamhouse.mqtt.topic-filter", TOPIC,
                // A throw-away client: no session left behind on the developer's broker.
                "streamhouse.mqtt.clean-session", "true");
    }

    @Override
    public void stop() {
    }
}
