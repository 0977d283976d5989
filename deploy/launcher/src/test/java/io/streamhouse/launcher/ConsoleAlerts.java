package io.streamhouse.launcher;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertStatus;
import io.streamhouse.domain.event.AlertSubject;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Severity;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Parcel alerts written to {@code alerts.parcels} of a running stack as the CEP job writes them (its Kafka login,
 * the registry's wire format), for the console's browser test: one alert, then a withdrawal of it.
 */
final class ConsoleAlerts implements AutoCloseable {

    private final KafkaProducer<String, byte[]> producer;
    private final AvroSerializer<Alert> serializer;

    ConsoleAlerts(Path data) throws Exception {
        Properties endpoints = new Properties();
        try (Reader r = Files.newBufferedReader(data.resolve("endpoints.properties"))) {
            endpoints.load(r);
        }
        producer = new KafkaProducer<>(KafkaClientSettings.from(KafkaPrincipal.CEP, endpoints::getProperty)
                .producer(endpoints.getProperty("kafka.bootstrap.servers"), Map.of(ProducerConfig.ACKS_CONFIG, "all")),
                new StringSerializer(), new ByteArraySerializer());
        serializer = new AvroSerializer<>(new CachingSchemaRegistryClient(endpoints.getProperty("schema.registry.url")), Alert.class, false);
    }

    /** Writes an alert (or, with {@code withdraws}, the withdrawal of that alert) about {@code parcel}; its id. */
    String send(String alertId, String parcel, String summary, String withdraws) throws Exception {
        Instant t = Instant.now();
        Alert alert = Alert.newBuilder()
                .setEnvelope(Envelopes.create("evt-" + alertId, parcel, t, t.plusMillis(5), "console-browser-test",
                        EventTypes.versionOf(Alert.class), null))
                .setAlertId(alertId).setType(AlertType.PARCEL_SLA_BREACH).setCategory(AlertCategory.PARCEL)
                .setSeverity(Severity.HIGH).setSubject(AlertSubject.newBuilder().setKind(SubjectKind.PARCEL).setId(parcel).build())
                .setPatternId("parcel-sla").setPatternVersion(1).setSummary(summary).setMatchedEventIds(List.of())
                .setAttributes(withdraws == null ? Map.of() : Map.of("supersedes", withdraws))
                .setStatus(withdraws == null ? AlertStatus.ACTIVE : AlertStatus.WITHDRAWN)
                .setWindowStart(t).setWindowEnd(t).build();
        String topic = Topics.PARCEL_ALERTS.name();
        producer.send(new ProducerRecord<>(topic, parcel, serializer.serialize(topic, alert))).get();
        return alertId;
    }

    @Override
    public void close() {
        producer.close();
    }
}
