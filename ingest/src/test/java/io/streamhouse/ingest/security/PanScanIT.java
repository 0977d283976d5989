package io.streamhouse.ingest.security;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.streamhouse.domain.pii.PanScanner;
import io.streamhouse.domain.pii.TopicPanScan;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.mqtt.MqttTelemetryBridge;
import io.streamhouse.ingest.mqtt.TelemetryMessages;
import io.streamhouse.ingest.testing.LogRecords;
import io.streamhouse.ingest.testing.MosquittoResource;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.TestTokens;
import jakarta.inject.Inject;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * No card number in clear anywhere ingest writes (issue #19, item 3; docs/pii.md): plants Luhn-valid card
 * numbers through every ingest entry point — the HTTP endpoints with valid and invalid requests (ids, free text,
 * field names, malformed JSON, a wrong media type), MQTT over the wire (a reading, a malformed message) and the MQTT
 * handler with a card number in the topic — then scans every record (key, value, every header) of every topic on the
 * shared test broker, every HTTP answer, and the app's log file for Luhn-valid digit runs ({@link PanScanner}).
 * The CDC edge is tested in {@code CdcNormalisationTopologyTest} and the Connect converter's test.
 */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class PanScanIT {
    static final Path LOG_FILE = Path.of("target/quarkus-test.log");
    static final String RUN = UUID.randomUUID().toString().substring(0, 8);

    @Inject
    TelemetryMessages telemetryMessages;

    @Inject
    MqttTelemetryBridge bridge;

    final List<String> answers = new ArrayList<>();
    final List<String> planted = new ArrayList<>();
    int serial = 1;

    /** A new Luhn-valid 16-digit card number (this run's, numbered), recorded as planted. */
    String pan() {
        String body = "4" + String.format("%06d", Math.floorMod(RUN.hashCode(), 1_000_000)) + String.format("%08d", serial++);
        for (int check = 0; check < 10; check++) {
            if (PanScanner.luhnValid(body + check)) {
                planted.add(body + check);
                return body + check;
            }
        }
        throw new IllegalStateException("no check digit for " + body);
    }

    static String spaced(String pan) {
        return pan.replaceAll("(\\d{4})(?=\\d)", "$1 ");
    }

    static String dashed(String pan) {
        return pan.replaceAll("(\\d{4})(?=\\d)", "$1-");
    }

    Response post(String role, String path, String contentType, String body) {
        Response r = given().auth().oauth2(TestTokens.forRole(role)).contentType(contentType).body(body).post(path);
        // Not the request's path: it may hold a planted card number itself.
        answers.add(r.statusCode() + " " + r.headers() + " " + r.asString());
        return r;
    }

    String transaction(String id, String card, String merchantName, String userAgent, String extra) {
        return """
                {"transactionId": "%s", "occurredAt": "2026-03-02T09:00:00Z", "card": {"number": "%s"},
                 "customerId": "c-pan", "merchant": {"id": "m-pan", "name": "%s", "mcc": "5411", "country": "NL"},
                 "amount": "12.00", "currency": "EUR", "channel": "ECOMMERCE", "device": {"id": "pos-pan", "userAgent": "%s"}%s}"""
                .formatted(id, card, merchantName, userAgent, extra);
    }

    @Test
    void noPlantedCardNumberIsInClearOnAnyTopicAnswerOrLogLine() throws Exception {
        String payments = Roles.PAYMENTS;
        String device = Roles.DEVICE;
        String json = ContentType.JSON.toString();

        // Valid requests: the card is tokenized, card numbers in free text are masked.
        post(payments, "/v1/transactions", json, transaction("pan-ok-" + RUN, spaced(pan()), "Shop " + pan(), "UA " + dashed(pan()), ""))
                .then().statusCode(202);
        post(payments, "/v1/transactions/authorize?deadlineMs=1", json,
                transaction("pan-auth-" + RUN, dashed(pan()), "Shop " + spaced(pan()), "ua", "")).then().statusCode(200);
        post(payments, "/v1/transactions", json, "[" + transaction("pan-b1-" + RUN, pan(), "Shop", "ua", "") + ","
                + transaction("pan-b2-" + RUN, pan(), "x" + pan() + "x", "ua", "") + "]").then().statusCode(202);

        // A caller's trace context: tracestate is free text the caller writes (W3C allows digits in its values).
        Response traced = given().auth().oauth2(TestTokens.forRole(payments)).contentType(json)
                .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .header("tracestate", "vendor=" + pan() + ",other=" + dashed(pan()))
                .body(transaction("pan-traced-" + RUN, pan(), "Shop", "ua", "")).post("/v1/transactions");
        answers.add(traced.statusCode() + " " + traced.headers() + " " + traced.asString());
        traced.then().statusCode(202);
        // ... and on a denied request, which writes an audit event.
        Response tracedDenied = given().auth().oauth2(TestTokens.forRole(device)).contentType(json)
                .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b8-01")
                .header("tracestate", "vendor=" + pan())
                .body(transaction("pan-traced-denied-" + RUN, pan(), "Shop", "ua", "")).post("/v1/transactions");
        answers.add(tracedDenied.statusCode() + " " + tracedDenied.headers() + " " + tracedDenied.asString());
        tracedDenied.then().statusCode(403);

        // Invalid requests: a card number as an id, a field name, a malformed body, the wrong media type.
        post(payments, "/v1/transactions", json, transaction(pan(), pan(), "Shop", "ua", "")).then().statusCode(422);
        post(payments, "/v1/transactions", json, transaction("pan-unknown-" + RUN, pan(), "Shop", "ua", ", \"" + pan() + "\": 1"))
                .then().statusCode(422);
        post(payments, "/v1/transactions", json, transaction("pan-cust-" + RUN, pan(), "Shop", "ua", "")
                .replace("\"c-pan\"", "\"" + pan() + "\"")).then().statusCode(422);
        post(payments, "/v1/transactions", json, "{\"card\": {\"number\": " + pan() + "}, \"transactionId\": \"" + pan() + "\"")
                .then().statusCode(400);
        post(payments, "/v1/transactions", json, "{\"card\": {\"number\": " + pan() + "}}").then().statusCode(422);
        post(payments, "/v1/transactions/authorize", json, transaction(dashed(pan()), pan(), "Shop", "ua", "")).then().statusCode(422);
        post(payments, "/v1/transactions", "text/plain", "card " + pan()).then().statusCode(415);
        post(device, "/v1/parcels/" + pan() + "/scans", json, """
                {"occurredAt": "2026-03-02T09:00:00Z", "status": "RECEIVED_AT_HUB", "hubId": "hub-rtm"}""").then().statusCode(422);
        post(device, "/v1/parcels/pcl-pan-" + RUN + "/scans", json, """
                {"occurredAt": "2026-03-02T09:00:00Z", "status": "%s", "hubId": "%s", "%s": true}"""
                .formatted(pan(), pan(), spaced(pan()))).then().statusCode(422);
        post(device, "/v1/telemetry", json, """
                {"vehicleId": "%s", "occurredAt": "2026-03-02T09:00:00Z", "position": {"lat": 51.92, "lon": 4.47},
                 "speedKmh": 50, "coolantTempC": 90, "odometerKm": 1000, "faultCodes": ["%s"]}""".formatted(pan(), pan()))
                .then().statusCode(422);

        // MQTT: over the wire on this run's topic (a reading with a card number as a field, a malformed message), and
        // the handler with a card number in the MQTT topic (the bridge subscribes to this run's topic only).
        // A word between the marker and a card number: the marker's hex may end in digits that, with the card's first
        // groups, read as a printed card number themselves and get masked with it.
        String marker = "pan-mqtt-" + RUN;
        List<byte[]> sent = new ArrayList<>();
        sent.add(("{\"occurredAt\": \"2026-03-02T09:00:00Z\", \"position\": {\"lat\": 1, \"lon\": 1}, \"speedKmh\": 5, "
                + "\"coolantTempC\": 90, \"odometerKm\": 1, \"note\": \"" + marker + " card " + spaced(pan()) + "\"}").getBytes(StandardCharsets.UTF_8));
        sent.add(("{" + marker + " card " + pan() + " broken").getBytes(StandardCharsets.UTF_8));
        boolean mqtt = MosquittoResource.reachable() || MosquittoResource.ci();
        if (mqtt) {
            await("the bridge subscribed").atMost(Duration.ofSeconds(30)).until(bridge::isSubscribed);
            var client = new MqttClient(MosquittoResource.URL, "pan-" + RUN, new MemoryPersistence());
            var options = new MqttConnectOptions();
            options.setCleanSession(true);
            client.connect(options);
            for (byte[] message : sent) {
                client.publish(MosquittoResource.TOPIC, message, 1, false);
            }
            client.disconnect();
            client.close();
        }
        var direct = telemetryMessages.handle("fleet/" + pan() + "/telemetry", ("{\"marker\": \"" + marker + "\"}").getBytes(StandardCharsets.UTF_8));
        assertThat(direct).isInstanceOf(TelemetryMessages.DeadLettered.class);

        // Every planted MQTT message has reached the dead-letter topic (masked, so found by its marker).
        var deadLetters = Topics.deadLetterOf(Topics.VEHICLE_TELEMETRY);
        int expectedDead = mqtt ? sent.size() + 1 : 1;
        await("the planted MQTT messages dead-lettered").atMost(Duration.ofSeconds(30)).until(() -> LogRecords.all(deadLetters).stream()
                .filter(r -> new String(r.value(), StandardCharsets.UTF_8).contains(marker)).count() >= expectedDead);
        var masked = LogRecords.all(deadLetters).stream()
                .filter(r -> new String(r.value(), StandardCharsets.UTF_8).contains(marker)).toList();
        assertThat(masked).anySatisfy(r -> assertThat(new String(r.headers().lastHeader(DeadLetterHeaders.MQTT_TOPIC).value(),
                StandardCharsets.UTF_8)).isEqualTo("fleet/[pan]/telemetry"));
        if (mqtt) {
            assertThat(masked).as("masked digit by digit, the rest byte for byte")
                    .anySatisfy(r -> assertThat(new String(r.value(), StandardCharsets.UTF_8)).contains(marker + " card **** **** **** ****"));
        }

        // The scan.
        var scanner = new PanScanner();
        answers.forEach(a -> scanner.scan("HTTP answer", a));
        long records = TopicPanScan.everyRecord(scanner, SharedPlatform.get().bootstrapServers());
        assertThat(Files.exists(LOG_FILE)).as("the app's log file, " + LOG_FILE.toAbsolutePath()).isTrue();
        String log = Files.readString(LOG_FILE, StandardCharsets.ISO_8859_1);
        scanner.scan("log " + LOG_FILE, log);

        assertThat(planted).hasSizeGreaterThan(25);
        assertThat(records).as("records scanned").isPositive();
        assertThat(log).as("the log file has this run's lines").contains("MQTT bridge");
        assertThat(scanner.hits()).as("Luhn-valid digit runs found in %d texts (%d topic records, %d answers, a %d-character log)",
                scanner.scannedTexts(), records, answers.size(), log.length()).isEmpty();
        for (String pan : planted) {
            assertThat(String.join("\n", answers)).doesNotContain(pan).doesNotContain(spaced(pan)).doesNotContain(dashed(pan));
            assertThat(log).doesNotContain(pan).doesNotContain(spaced(pan)).doesNotContain(dashed(pan));
        }
    }
}
