package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.Severity;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.AlertSubject;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Skews;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Event times far off the time their record was written, on every topic the job reads in event time: minutes ahead are
 * taken, hours and years ahead are dead-lettered with the reason, before 1970 is taken (then late, as any old event).
 * And what the job writes is stamped when written, whatever the event time, so a broker accepts it.
 */
class EventTimesAtTheSourceTest {
    private static final Instant WRITTEN = Instant.parse("2026-12-04T12:00:00Z");

    static Stream<Arguments> skews() {
        List<Arguments> all = new ArrayList<>();
        for (Topic<String, ? extends SpecificRecord> topic : CepJob.eventTimeInputs()) {
            for (Skews skew : Skews.values()) {
                all.add(Arguments.of(topic.name(), skew));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("skews")
    void anEventIsTakenOrDeadLetteredWithTheReason(String topicName, Skews skew) {
        Topic<String, ? extends SpecificRecord> topic = CepJob.eventTimeInputs().stream()
                .filter(t -> t.name().equals(topicName)).findFirst().orElseThrow();
        Either<DeadLetter, ?> read = read(topic, skew.eventTime(WRITTEN));

        if (skew.taken()) {
            assertThat(read.isRight()).as(skew.name()).isTrue();
        } else {
            assertThat(read.isLeft()).as(skew.name()).isTrue();
            assertThat(read.left().reason).contains("ahead of the time the event was written", WRITTEN.toString());
            assertThat(read.left().sourceTopic).isEqualTo(topicName);
        }
    }

    @Test
    void alertsAndLateEventsAreStampedWhenWritten() {
        Alert alert = Alert.newBuilder()
                .setEnvelope(Envelopes.create("a-1", "card-1", WRITTEN.plus(Duration.ofDays(1000)),
                        WRITTEN.plus(Duration.ofDays(1000)), "cep", 1, null))
                .setAlertId("a-1").setType(AlertType.CARD_TESTING).setCategory(AlertCategory.FRAUD)
                .setSeverity(Severity.HIGH).setSubject(AlertSubject.newBuilder().setKind(SubjectKind.CARD).setId("card-1").build())
                .setPatternId("cep-card-testing").setPatternVersion(1).setSummary("s")
                .setWindowStart(WRITTEN.plus(Duration.ofDays(1000))).setWindowEnd(WRITTEN.plus(Duration.ofDays(1000)))
                .setMatchedEventIds(List.of("e-1")).setAttributes(Map.of()).build();
        var schema = new KafkaRecords.AlertSchema(() -> BoundedRun.REGISTRY, "");
        schema.open(null, null);
        ProducerRecord<byte[], byte[]> record = schema.serialize(alert, null, alert.getWindowEnd().toEpochMilli());
        assertThat(record.timestamp()).as("null: the producer stamps it when it sends").isNull();

        LateRecord late = new LateRecord(Topics.TRANSACTION_REQUESTS.name(), Topics.lateOf(Topics.TRANSACTION_REQUESTS).name(),
                "card-1", new byte[]{1}, "e-1", -14_000_000_000L, 0L, "late");
        assertThat(new KafkaRecords.LateSchema("").serialize(late, null, -14_000_000_000L).timestamp()).isNull();
    }

    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecord> Either<DeadLetter, T> read(Topic<String, T> topic, Instant occurredAt) {
        T event = (T) eventOf(topic.name(), occurredAt);
        byte[] value = new AvroSerializer<T>(BoundedRun.REGISTRY, topic.valueType(), false).serialize(topic.name(), event);
        var schema = new WireDeserializationSchema<>(topic, () -> BoundedRun.REGISTRY);
        schema.open(null);
        List<Either<DeadLetter, T>> out = new ArrayList<>();
        schema.deserialize(new ConsumerRecord<>(topic.name(), 3, 42L, WRITTEN.toEpochMilli(), TimestampType.CREATE_TIME,
                1, value.length, "k".getBytes(StandardCharsets.UTF_8), value, new RecordHeaders(), Optional.empty()),
                new Collector<>() {
                    @Override
                    public void collect(Either<DeadLetter, T> record) {
                        out.add(record);
                    }

                    @Override
                    public void close() {
                    }
                });
        assertThat(out).hasSize(1);
        return out.get(0);
    }

    private static SpecificRecord eventOf(String topic, Instant at) {
        Map<String, Function<Instant, SpecificRecord>> events = Map.of(
                Topics.TRANSACTION_REQUESTS.name(), t -> CepEvents.payment("tx-1", "card-1", "10.00", t),
                Topics.CUSTOMERS.name(), t -> CepEvents.emailChanged("c-1", "cust-1", t),
                Topics.ORDERS.name(), t -> CepEvents.order("o-1", "order-1", "cust-1", "10.00", SampleEvents.address("Dam 1", "Amsterdam"), t),
                Topics.PARCEL_SCANS.name(), t -> CepEvents.scan("s-1", "P-1", ParcelStatus.OUT_FOR_DELIVERY, t.plus(Duration.ofDays(1)), t),
                Topics.VEHICLE_TELEMETRY.name(), t -> CepEvents.reading("r-1", "truck-1", 90, 1000, t));
        return events.get(topic).apply(at);
    }
}
