package io.streamhouse.replay;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.wire.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Copies one target's inputs into the shadow's input topics: each partition's lake rows before the cut (the row's own
 * Avro, framed with the topic's schema id), then the log's records from the first offset the lake does not hold; rows
 * in both are compared, and the copy is read back and digested against what was sent.
 */
final class Stitcher {

    /** One input partition's stitch: what came from the lake, what from the log, and the checks on both. */
    record Stitch(String target, String topic, int partition, long lakeRows, long lakeLastOffset, long logStart, long cut, long logRecords,
                  long stitched, long overlapRows, boolean overlapEqual, String overlapDifference, String lakeDigest, String logDigest,
                  boolean readBackEqual) {
        boolean exact() {
            return overlapEqual && readBackEqual && stitched == lakeRows + logRecords;
        }
    }

    static List<Stitch> stitch(Admin admin, String bootstrap, TopicSerdes serdes, BackfillPlan plan,
                                       Map<String, LakeRows.Snapshotted> tables, Duration timeout) throws Exception {
        String inputPrefix = Backfill.inputPrefix(plan.app());
        List<NewTopic> create = plan.topics().stream().map(t -> new NewTopic(inputPrefix + t.name(), t.partitions(), (short) -1)
                .configs(t.configs())).toList();
        try {
            admin.createTopics(create).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new Endpoints.EnvironmentException("cannot create the shadow's input topics: " + e.getMessage(), e);
        }
        List<Stitch> stitches = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.REPLAY)
                .producer(bootstrap, Map.of(
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 20)), new ByteArraySerializer(), new ByteArraySerializer());
             KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            for (Topic<String, ?> topic : plan.topics()) {
                stitches.addAll(stitchTopic(producer, consumer, serdes, plan.target(), topic, tables.get(topic.name()), plan.stitchCut(),
                        inputPrefix, timeout));
            }
            producer.flush();
            for (int i = 0; i < stitches.size(); i++) {
                stitches.set(i, readBack(consumer, stitches.get(i), inputPrefix, timeout));
            }
        }
        return stitches;
    }

    private static <V> List<Stitch> stitchTopic(KafkaProducer<byte[], byte[]> producer, KafkaConsumer<byte[], byte[]> consumer,
                                                TopicSerdes serdes, Target target, Topic<String, V> topic, LakeRows.Snapshotted rows, Cut cut,
                                                String inputPrefix, Duration timeout) throws Exception {
        Schema schema = SpecificData.get().getSchema(topic.valueType());
        SpecificDatumReader<V> reader = new SpecificDatumReader<>(schema);
        Serializer<V> serializer = serdes.valueSerde(topic).serializer();
        Integer schemaId = null;
        List<Stitch> out = new ArrayList<>();
        for (int p = 0; p < topic.partitions(); p++) {
            TopicPartition tp = new TopicPartition(topic.name(), p);
            long end = cut.offsets().getOrDefault(tp, 0L), logStart = cut.earliest().getOrDefault(tp, 0L);
            long next = BackfillPlan.next(rows, p, end);
            RecordDigest lakeDigest = new RecordDigest();
            Map<Long, byte[][]> lakeInLog = new HashMap<>();
            long lakeRows = 0, previous = -1;
            String copy = inputPrefix + topic.name();
            for (LakeRows.Row r : rows.byPartition().getOrDefault(p, List.of())) {
                if (r.offset() >= end) {
                    break;
                }
                if (r.offset() == previous) {
                    throw new Endpoints.EnvironmentException(rows.table() + " holds offset " + r.offset() + " of " + tp
                            + " twice at snapshot " + rows.snapshotId() + ": the lake is not exactly once here, refusing to stitch it");
                }
                previous = r.offset();
                V value = reader.read(null, DecoderFactory.get().binaryDecoder(r.avro(), null));
                byte[] key = target.inputKey(topic, value).getBytes(StandardCharsets.UTF_8);
                if (schemaId == null) {
                    schemaId = WireFormat.schemaId(serializer.serialize(topic.name(), value), topic.name());
                }
                // The row's own Avro, not the generated object's re-encoding: a generated class reads a map into a
                // HashMap, which would re-encode its entries in another order than the producer wrote them.
                byte[] wire = WireFormat.frame(schemaId, r.avro());
                producer.send(new ProducerRecord<>(copy, p, r.timestampMs(), key, wire));
                lakeDigest.add(key, RecordDigest.canonical(topic.name(), wire));
                lakeRows++;
                if (r.offset() >= logStart) {
                    lakeInLog.put(r.offset(), new byte[][]{key, wire});
                }
            }
            // The log: its records that the lake also holds are compared, those from `next` on are appended.
            RecordDigest logDigest = new RecordDigest();
            long logRecords = 0, overlapRows = 0;
            String firstDifference = null;
            if (logStart < end) {
                consumer.assign(List.of(tp));
                consumer.seek(tp, logStart);
                Instant deadline = Instant.now().plus(timeout);
                while (consumer.position(tp) < end) {
                    if (Instant.now().isAfter(deadline)) {
                        throw new Endpoints.EnvironmentException("reading " + tp + " did not reach the cut " + end + " within " + timeout.toSeconds() + " s");
                    }
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        if (r.offset() >= end) {
                            continue;
                        }
                        if (r.offset() < next) {
                            byte[][] lakeRow = lakeInLog.remove(r.offset());
                            overlapRows++;
                            String difference = lakeRow == null ? "in the log, not in the lake"
                                    : !java.util.Arrays.equals(lakeRow[0], r.key()) ? "keys differ"
                                    : !java.util.Arrays.equals(RecordDigest.canonical(topic.name(), lakeRow[1]), RecordDigest.canonical(topic.name(), r.value()))
                                    ? "values differ (lake " + lakeRow[1].length + " bytes, log " + r.value().length + ")" : null;
                            if (difference != null && firstDifference == null) {
                                firstDifference = "offset " + r.offset() + ": " + difference;
                            }
                        } else {
                            producer.send(new ProducerRecord<>(copy, p, r.timestamp(), r.key(), r.value(), r.headers()));
                            logDigest.add(r.key(), RecordDigest.canonical(topic.name(), r.value()));
                            logRecords++;
                        }
                    }
                }
                consumer.assign(List.of());
            }
            if (!lakeInLog.isEmpty() && firstDifference == null) {
                // the lake holds an offset the log (read_committed) does not: an aborted record, or not ours
                firstDifference = "offset " + lakeInLog.keySet().stream().min(Long::compare).orElseThrow() + ": in the lake, not in the log";
            }
            out.add(new Stitch(target.label(), topic.name(), p, lakeRows, next - 1, logStart, end, logRecords, -1, overlapRows, firstDifference == null,
                    firstDifference, lakeDigest.hex(), logDigest.hex(), false));
        }
        return out;
    }

    /** Reads the stitched partition back: its count and both parts' digests must be what was sent. */
    private static Stitch readBack(KafkaConsumer<byte[], byte[]> consumer, Stitch s, String inputPrefix, Duration timeout) {
        TopicPartition tp = new TopicPartition(inputPrefix + s.topic(), s.partition());
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        long end = consumer.endOffsets(List.of(tp)).get(tp);
        RecordDigest lake = new RecordDigest(), log = new RecordDigest();
        long count = 0;
        Instant deadline = Instant.now().plus(timeout);
        while (consumer.position(tp) < end) {
            if (Instant.now().isAfter(deadline)) {
                throw new Endpoints.EnvironmentException("reading back " + tp + " did not reach its end within " + timeout.toSeconds() + " s");
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                (count < s.lakeRows() ? lake : log).add(r.key(), RecordDigest.canonical(s.topic(), r.value()));
                count++;
            }
        }
        consumer.assign(List.of());
        boolean equal = count == end && lake.hex().equals(s.lakeDigest()) && log.hex().equals(s.logDigest());
        return new Stitch(s.target(), s.topic(), s.partition(), s.lakeRows(), s.lakeLastOffset(), s.logStart(), s.cut(), s.logRecords(), count,
                s.overlapRows(), s.overlapEqual(), s.overlapDifference(), s.lakeDigest(), s.logDigest(), equal);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        return new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.REPLAY).consumer(bootstrap, Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000)), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private Stitcher() {
    }
}
