package io.streamhouse.loadtests.bench;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Kafka's two-hop round trip with plain clients, at a fixed rate: a producer writes to {@code hop1}, a relay consumes
 * it and produces each record to {@code hop2}, a consumer reads {@code hop2}; latency is from the due send time to
 * the moment the consumer sees the record. This is the authorize path without HTTP and without Streams' logic: the
 * floor the decision round trip is compared to.
 * <p>
 * With {@code transactionalCommit} set, the relay works as Kafka Streams does under {@code exactly_once_v2}: it
 * sends inside a transaction that it commits (offsets included) every {@code commitInterval}, and the final consumer
 * reads {@code read_committed}. The difference between the two is what exactly-once costs on the round trip.
 */
final class TwoHopBaseline {

    /** {@code sent} and {@code received} count the measured records only, not the warm-up. */
    record Result(Latencies latencies, long sent, long received) {
    }

    private final String bootstrap;

    TwoHopBaseline(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    /**
     * Sends at {@code perSecond} for {@code warmup + duration}; records only what was due after the warm-up. The
     * producer starts once the relay holds its partitions.
     */
    Result run(String runId, int perSecond, Duration warmup, Duration duration, int size, Duration commitInterval,
               boolean transactional) throws Exception {
        String hop1 = "bench." + runId + ".hop1";
        String hop2 = "bench." + runId + ".hop2";
        try (Admin admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS).admin(bootstrap))) {
            admin.createTopics(List.of(new NewTopic(hop1, 6, (short) 1), new NewTopic(hop2, 6, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS);
            try {
                return relay(runId, hop1, hop2, perSecond, warmup, duration, size, commitInterval, transactional);
            } finally {
                admin.deleteTopics(List.of(hop1, hop2)).all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    private Result relay(String runId, String hop1, String hop2, int perSecond, Duration warmup, Duration duration, int size,
                         Duration commitInterval, boolean transactional) throws Exception {
        Latencies latencies = new Latencies();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong received = new AtomicLong();
        AtomicLong measured = new AtomicLong();
        CountDownLatch relayAssigned = new CountDownLatch(1);
        long warmupCount = (long) (perSecond * (warmup.toNanos() / 1e9));

        try (KafkaConsumer<byte[], byte[]> sink = consumer(null, transactional)) {
            List<TopicPartition> parts = List.of();
            long metadataDeadline = System.nanoTime() + 30_000_000_000L;
            while (parts.size() < 6) { // a just-created topic's metadata can lag behind the create call
                if (System.nanoTime() > metadataDeadline) {
                    throw new IllegalStateException(hop2 + " has no metadata 30 s after it was created");
                }
                parts = sink.partitionsFor(hop2, Duration.ofSeconds(5)).stream()
                        .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            }
            sink.assign(parts);
            sink.seekToBeginning(parts);
            parts.forEach(sink::position);

            Thread relay = new Thread(() -> relayLoop(runId, hop1, hop2, commitInterval, transactional, stop, relayAssigned),
                    "bench-relay");
            relay.start();
            if (!relayAssigned.await(60, TimeUnit.SECONDS)) {
                stop.set(true);
                throw new IllegalStateException("the relay got no partitions of " + hop1 + " within 60 s");
            }
            Pacer pacer = new Pacer(System.nanoTime() + 100_000_000L, perSecond, warmup.plus(duration));
            Thread producer = new Thread(() -> produce(hop1, pacer, size), "bench-producer");
            producer.start();
            long until = System.nanoTime() + warmup.plus(duration).toNanos() + 20_000_000_000L;
            while (received.get() < pacer.count() && System.nanoTime() < until) {
                ConsumerRecords<byte[], byte[]> records = sink.poll(Duration.ofMillis(100));
                long now = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    ByteBuffer value = ByteBuffer.wrap(r.value());
                    long due = value.getLong();
                    if (value.getLong() >= warmupCount) {
                        latencies.recordNanos(now - due);
                        measured.incrementAndGet();
                    }
                    received.incrementAndGet();
                }
            }
            stop.set(true);
            producer.join(30_000);
            relay.join(30_000);
            return new Result(latencies, pacer.count() - warmupCount, measured.get());
        }
    }

    private void produce(String topic, Pacer pacer, int size) {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(null), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (long i = 0; i < pacer.count(); i++) {
                long due = pacer.awaitDue(i);
                byte[] value = new byte[size];
                ByteBuffer.wrap(value).putLong(due).putLong(i);
                producer.send(new ProducerRecord<>(topic, Long.toString(i).getBytes(), value));
            }
            producer.flush();
        }
    }

    private void relayLoop(String runId, String in, String out, Duration commitInterval, boolean transactional,
                           AtomicBoolean stop, CountDownLatch assigned) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("bench-relay-" + runId, transactional);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                     producerConfig(transactional ? "bench-relay-" + runId : null),
                     new ByteArraySerializer(), new ByteArraySerializer())) {
            consumer.subscribe(List.of(in));
            if (transactional) {
                producer.initTransactions();
            }
            Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
            long lastCommit = System.nanoTime();
            boolean open = false;
            while (!stop.get()) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(5));
                if (!consumer.assignment().isEmpty()) {
                    assigned.countDown();
                }
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    if (transactional && !open) {
                        producer.beginTransaction();
                        open = true;
                    }
                    producer.send(new ProducerRecord<>(out, r.key(), r.value()));
                    pending.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                if (transactional && open && System.nanoTime() - lastCommit >= commitInterval.toNanos()) {
                    producer.sendOffsetsToTransaction(pending, consumer.groupMetadata());
                    producer.commitTransaction();
                    pending.clear();
                    open = false;
                    lastCommit = System.nanoTime();
                } else if (!transactional) {
                    lastCommit = System.nanoTime();
                }
            }
            if (transactional && open) {
                producer.sendOffsetsToTransaction(pending, consumer.groupMetadata());
                producer.commitTransaction();
            }
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer(String group, boolean readCommitted) {
        Properties p = new Properties();
        if (group != null) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted");
        return new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS)
                .consumer(bootstrap, p), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private Map<String, Object> producerConfig(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        if (transactionalId != null) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return KafkaClientSettings.forPrincipal(KafkaPrincipal.LOAD_TESTS).producer(bootstrap, p);
    }
}
