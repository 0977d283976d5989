package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The HTTP target against a stand-in for ingest on loopback: what arrives, in which order, and how it fails. */
class HttpSinkTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static {
        // The JDK server writes headers and body apart; without TCP_NODELAY each answer waits ~40 ms for a delayed
        // ACK. Read once, when the JDK's server config class loads, hence here.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }
    final List<JsonNode> received = new CopyOnWriteArrayList<>();
    HttpServer server;

    void startIngest(int status) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/", exchange -> {
            var body = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(exchange.getRequestBody());
            body.put("@path", exchange.getRequestURI().getRawPath());
            received.add(body);
            byte[] answer = "{}".getBytes();
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void sendsEveryTransactionInDeliveryOrderWithItsTestPan() throws IOException {
        startIngest(202);
        Generation g = Generator.generate(GeneratorConfig.defaults(8, 600));
        Map<String, String> pans = new HashMap<>();
        g.cards().forEach(c -> pans.put(c.token(), c.pan()));
        var result = SinkRun.send(g, new HttpSink(url(), pans, 1, "payments-token", "device-token"), EnumSet.of(EventKind.TRANSACTION),
                Duration.ofSeconds(60), null);

        List<TransactionAuthorizationRequested> expected = g.events().stream()
                .filter(e -> e.kind() == EventKind.TRANSACTION)
                .map(e -> (TransactionAuthorizationRequested) e.value()).toList();
        assertThat(result.sent()).isEqualTo(expected.size()).isEqualTo(received.size());
        assertThat(result.skipped()).isEqualTo(g.events().size() - expected.size()).isPositive();
        for (int i = 0; i < expected.size(); i++) {
            assertThat(received.get(i).get("transactionId").asText()).isEqualTo(expected.get(i).getTransactionId());
            assertThat(received.get(i).get("card").get("number").asText()).isEqualTo(pans.get(expected.get(i).getCardToken()));
        }
    }

    @Test
    void sendsTelemetryAndParcelScansToTheirEndpointsWithTheGeneratorsEventIds() throws IOException {
        startIngest(202);
        Generation g = Generator.generate(GeneratorConfig.defaults(9, 2_000));
        var kinds = EnumSet.of(EventKind.VEHICLE_TELEMETRY, EventKind.PARCEL_SCAN);
        var result = SinkRun.send(g, new HttpSink(url(), Map.of(), 1, "payments-token", "device-token"), kinds, Duration.ofSeconds(60), null);

        List<GeneratedEvent> expected = g.events().stream().filter(e -> kinds.contains(e.kind())).toList();
        assertThat(expected).extracting(GeneratedEvent::kind).contains(EventKind.VEHICLE_TELEMETRY, EventKind.PARCEL_SCAN);
        assertThat(result.sent()).isEqualTo(expected.size()).isEqualTo(received.size());
        for (int i = 0; i < expected.size(); i++) {
            GeneratedEvent e = expected.get(i);
            JsonNode body = received.get(i);
            assertThat(body.get("eventId").asText()).isEqualTo(e.eventId());
            if (e.value() instanceof io.streamhouse.domain.event.ParcelScanned scan) {
                assertThat(body.get("@path").asText()).isEqualTo("/v1/parcels/" + scan.getParcelId() + "/scans");
                assertThat(body.get("status").asText()).isEqualTo(scan.getStatus().name());
            } else {
                assertThat(body.get("@path").asText()).isEqualTo("/v1/telemetry");
                assertThat(body.get("vehicleId").asText()).isEqualTo(e.key());
            }
        }
    }

    @Test
    void refusesCustomersAndOrdersBeforeSendingAnything() throws IOException {
        startIngest(202);
        Generation g = Generator.generate(GeneratorConfig.defaults(8, 600));
        var sink = new HttpSink(url(), Map.of(), 1, "payments-token", "device-token");
        assertThatThrownBy(() -> SinkRun.send(g, sink, EnumSet.allOf(EventKind.class), Duration.ofSeconds(10), null))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("cannot send")
                .hasMessageMatching("(?s).*(CUSTOMER|ORDER).*");
        assertThat(received).isEmpty();
    }

    @Test
    void stopsAtTheFirstRefusal() throws IOException {
        startIngest(422);
        Generation g = Generator.generate(GeneratorConfig.defaults(8, 300));
        Map<String, String> pans = new HashMap<>();
        g.cards().forEach(c -> pans.put(c.token(), c.pan()));
        assertThatThrownBy(() -> SinkRun.send(g, new HttpSink(url(), pans, 1, "payments-token", "device-token"), EnumSet.of(EventKind.TRANSACTION),
                Duration.ofSeconds(30), null))
                .isInstanceOf(IOException.class).hasMessageContaining("HTTP 422");
        assertThat(received).hasSizeLessThanOrEqualTo(2);
    }

    @Test
    void networkTargetsAreLoopbackOnly() {
        assertThatThrownBy(() -> new HttpSink("http://ingest.example.com:8081", Map.of(), 1, "t", "t"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loopback");
        assertThatThrownBy(() -> new KafkaSink("127.0.0.1:9092,10.0.0.7:9092", "http://127.0.0.1:8085", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10.0.0.7:9092");
        assertThatThrownBy(() -> new KafkaSink("localhost:9092", "http://registry.internal:8085", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("schema registry");
        assertThat(Loopback.isLoopbackHost("127.0.0.1")).isTrue();
        assertThat(Loopback.isLoopbackHost("[::1]")).isTrue();
        assertThat(Loopback.isLoopbackHost("localhost")).isTrue();
        assertThat(Loopback.isLoopbackHost("128.0.0.1")).isFalse();
        assertThat(Loopback.isLoopbackHost("localhost.evil.com")).isFalse();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }
}
