package io.streamhouse.domain.wire;

import static io.streamhouse.domain.wire.Shipments.ROTTERDAM_SCAN;
import static io.streamhouse.domain.wire.Shipments.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.domain.topic.CleanupPolicy;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.wire.fixture.ShipmentScanned;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What an app looks up before it serves: afterwards the first record's serializer and deserializer ask nothing. */
class SchemaPrefetchTest {

    private static final Topic<String, ShipmentScanned> SCANS = new Topic<>(TOPIC, String.class, ShipmentScanned.class, 1,
            CleanupPolicy.DELETE, Optional.empty(), "test");
    private static final Topic<String, ShipmentScanned> NOT_YET = new Topic<>("logistics.shipments.unseen", String.class,
            ShipmentScanned.class, 1, CleanupPolicy.DELETE, Optional.empty(), "test");
    private static final Topic<String, String> PLAIN = new Topic<>("logistics.shipments.notes", String.class, String.class, 1,
            CleanupPolicy.DELETE, Optional.empty(), "test");

    private final TestRegistryHttp server;
    private final CachingSchemaRegistryClient client;

    SchemaPrefetchTest() throws IOException {
        server = new TestRegistryHttp();
        client = server.client();
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    @Test
    void afterAPrefetchTheFirstRecordWrittenAndReadAsksTheRegistryNothing() {
        // This build's schema as its serializer registers it; then what another app writes now, with a version this
        // build does not have (the subject's latest).
        server.registry().register(TOPIC + "-value", AvroSchemas.withoutJavaProperties(ShipmentScanned.getClassSchema()));
        int latest = server.registry().register(TOPIC + "-value", Shipments.V1);
        byte[] theirs = Shipments.framed(latest, Shipments.v1Scan("scan-7", 900));

        var result = SchemaPrefetch.prefetch(client, List.of(SCANS, NOT_YET, PLAIN));

        assertThat(result).isEqualTo(new SchemaPrefetch.Result(1, 1));
        int asked = server.totalCalls();
        byte[] ours = new AvroSerializer<>(client, ShipmentScanned.class, false).serialize(TOPIC, ROTTERDAM_SCAN);
        var deserializer = new AvroDeserializer<>(client, ShipmentScanned.class, false);
        assertThat(deserializer.deserialize(TOPIC, ours)).isEqualTo(ROTTERDAM_SCAN);
        assertThat(deserializer.deserialize(TOPIC, theirs).getScanId()).isEqualTo("scan-7");
        assertThat(server.totalCalls()).as("registry calls after the prefetch").isEqualTo(asked);
    }

    @Test
    void aRegistryThatDoesNotAnswerIsSkipped() {
        server.close();

        assertThat(SchemaPrefetch.prefetch(client, List.of(SCANS))).isEqualTo(new SchemaPrefetch.Result(0, 1));
    }
}
