package io.streamhouse.api.decisions;

import io.streamhouse.broker.BrokerOptions;
import io.streamhouse.broker.BrokerProcess;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.events.Fingerprints;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.TopicProvisioner;
import io.streamhouse.platform.junit.WithStreamhousePlatform;
import io.streamhouse.supervisor.ChildSpec;
import io.streamhouse.supervisor.Readiness;
import io.streamhouse.supervisor.SupervisedChild;
import io.streamhouse.supervisor.Supervisor;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The effect of exactly-once for decisions, without a transaction on the answer's path, proven against the real
 * broker: two decision app JVMs at-least-once under a steady load, with the rules changing all along (so a request
 * decided again would come out differently), are {@code kill -9}ed three times between them and the broker is
 * {@code kill -9}ed and restarted once. Afterwards:
 * <ul>
 *   <li>every request has a decision;</li>
 *   <li>every decision on the topic for one transaction id is the same bytes (duplicates are allowed only so);</li>
 *   <li>every answer a waiting payments client took off the topic (its first sight of the transaction's decision)
 *       is the decision the log holds;</li>
 *   <li>every request that named a reply partition (every other one) has its decision copied there, and every copy an
 *       instance reading that partition takes (the first one's, a retry's, a replay's) is, byte for byte, the decision
 *       the log holds;</li>
 *   <li>a different request under a transaction id already decided, on the same card or another, is never decided:
 *       it is on the requests' dead-letter topic with the reason.</li>
 * </ul>
 */
@Execution(ExecutionMode.CONCURRENT)
@WithStreamhousePlatform
class DecisionCrashIT {
    private static final int PER_TICK = 5;
    private static final int REPLY_PARTITION = 1;
    private static final String[] CARDS = {"tok_crash_a", "tok_crash_b", "tok_crash_c", "tok_crash_d", "tok_crash_e",
            "tok_crash_f", "tok_crash_g", "tok_crash_h", "tok_crash_i", "tok_crash_j", "tok_crash_k", "tok_crash_l"};

    private final EmbeddedPlatform platform;

    DecisionCrashIT(EmbeddedPlatform platform) {
        this.platform = platform;
    }

    private static String transactionId(int i) {
        return "crash-tx-" + i;
    }

    private static TransactionAuthorizationRequested request(int i, String card, String amount) {
        return SampleEvents.transaction(transactionId(i), card, amount, "EUR", Merchants.GROCER_ROTTERDAM,
                Instant.parse("2026-12-01T10:00:00Z").plusMillis(i * 10L));
    }

    @Test
    void killedDecisionAppsAndABrokerRestartLeaveOneDecisionPerTransaction(@TempDir Path dir) throws Exception {
        String registryUrl = platform.schemaRegistryUrl().toString();
        Supervisor supervisor = Supervisor.unsupervised();
        BrokerProcess broker = BrokerProcess.start(BrokerOptions.ephemeral(dir.resolve("broker")), supervisor);
        List<SupervisedChild> apps = new ArrayList<>();
        ScheduledExecutorService load = Executors.newSingleThreadScheduledExecutor();
        AtomicBoolean tailing = new AtomicBoolean(true);
        Thread waiter = null;
        try (var registry = new CachingSchemaRegistryClient(registryUrl);
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            String bootstrap = broker.bootstrapServers();
            TopicProvisioner.ensure(admin, Topics.allWithDeadLetters());

            var requestSerializer = new AvroSerializer<>(registry, TransactionAuthorizationRequested.class, false);
            var ruleSerializer = new AvroSerializer<>(registry, RuleDefinition.class, false);
            var decisions = new AvroDeserializer<>(registry, TransactionDecision.class, false);
            KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.LINGER_MS_CONFIG, 1,
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 180_000, ProducerConfig.MAX_BLOCK_MS_CONFIG, 180_000),
                    new StringSerializer(), new ByteArraySerializer());
            DefaultRules.definitions().forEach(d -> producer.send(new ProducerRecord<>(Topics.RULES.name(), d.getRuleId(),
                    ruleSerializer.serialize(Topics.RULES.name(), d))));
            producer.flush();

            // Both at once: two JVMs starting side by side take less wall time than one after the other.
            var second = java.util.concurrent.CompletableFuture.supplyAsync(() -> supervisor.start(appSpec(dir, bootstrap, registryUrl, "app-1")));
            apps.add(supervisor.start(appSpec(dir, bootstrap, registryUrl, "app-0")));
            apps.add(second.join());

            // The payments client: its first sight of each transaction's decision is the answer it gives. And an ingest
            // instance reading only its reply partition (1): every copy (a retry through it is answered from the latest).
            Map<String, byte[]> answered = new ConcurrentHashMap<>();
            Map<String, List<byte[]>> answeredByCopy = new ConcurrentHashMap<>();
            KafkaConsumer<String, byte[]> tail = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new ByteArrayDeserializer());
            waiter = new Thread(() -> {
                try (tail) {
                    var partitions = new ArrayList<>(tail.partitionsFor(Topics.TRANSACTION_DECISIONS.name()).stream()
                            .map(p -> new TopicPartition(p.topic(), p.partition())).toList());
                    partitions.add(new TopicPartition(Topics.TRANSACTION_DECISION_REPLIES.name(), REPLY_PARTITION));
                    tail.assign(partitions);
                    tail.seekToBeginning(partitions);
                    while (tailing.get()) {
                        for (var r : tail.poll(Duration.ofMillis(100))) {
                            if (r.topic().equals(Topics.TRANSACTION_DECISIONS.name())) {
                                answered.putIfAbsent(r.key(), r.value());
                            } else {
                                answeredByCopy.computeIfAbsent(r.key(), k -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(r.value());
                            }
                        }
                    }
                }
            }, "payments-client");
            waiter.start();

            // Load: 100 requests/s from before the first kill to after the last restart; every 23rd also retried 40
            // requests later (same content); every 97th followed by a different request under its id (another card every
            // other time); a rule version every 200 requests.
            Map<String, String> expectedFingerprint = new ConcurrentHashMap<>();
            Map<String, Set<String>> conflicting = new ConcurrentHashMap<>();
            Set<String> askedForCopy = ConcurrentHashMap.newKeySet();
            AtomicInteger sent = new AtomicInteger();
            AtomicInteger stopAt = new AtomicInteger(Integer.MAX_VALUE);
            AtomicInteger failedSends = new AtomicInteger();
            load.scheduleAtFixedRate(() -> {
                for (int k = 0; k < PER_TICK && sent.get() < stopAt.get(); k++) {
                    int i = sent.get();
                    String card = CARDS[i % CARDS.length];
                    var r = request(i, card, (5 + i % 40) + ".00");
                    expectedFingerprint.put(transactionId(i), hex(Fingerprints.of(r)));
                    send(producer, requestSerializer, r, failedSends, asksForCopy(i));
                    if (asksForCopy(i)) {
                        askedForCopy.add(transactionId(i));
                    }
                    if (i % 23 == 0 && i >= 40) {
                        int j = i - 40;
                        send(producer, requestSerializer, request(j, CARDS[j % CARDS.length], (5 + j % 40) + ".00"), failedSends, asksForCopy(j));
                    }
                    if (i % 97 == 0) {
                        String otherCard = i % 2 == 0 ? card : CARDS[(i + 1) % CARDS.length];
                        var other = request(i, otherCard, "999.00");
                        conflicting.computeIfAbsent(transactionId(i), id -> ConcurrentHashMap.newKeySet()).add(hex(Fingerprints.of(other)));
                        send(producer, requestSerializer, other, failedSends, asksForCopy(i));
                    }
                    if (i % 200 == 199) {
                        RuleDefinition base = DefaultRules.definitions().get(0);
                        var next = RuleDefinition.newBuilder(base).setVersion(base.getVersion() + i / 200 + 1)
                                .setParameters(Map.of("threshold", i / 200 % 2 == 0 ? "20" : "1000", "currency", "EUR")).build();
                        producer.send(new ProducerRecord<>(Topics.RULES.name(), next.getRuleId(),
                                ruleSerializer.serialize(Topics.RULES.name(), next)));
                    }
                    sent.incrementAndGet();
                }
            }, 0, 50, TimeUnit.MILLISECONDS);

            // Chaos under the load: kill -9 an app and bring it back, then the other, the broker, the first again.
            // Each start returns once the app (or broker) is up again; the load goes on meanwhile.
            awaitSent(sent, 300);
            apps.get(0).killAndStop();
            awaitSent(sent, sent.get() + 200);
            apps.get(0).start();
            apps.get(1).killAndStop();
            awaitSent(sent, sent.get() + 200);
            apps.get(1).start();
            broker.supervised().killAndStop();
            broker.supervised().start();
            awaitSent(sent, sent.get() + 200);
            apps.get(0).killAndStop();
            apps.get(0).start();
            stopAt.set(sent.get() + 300);
            awaitSent(sent, stopAt.get());
            load.shutdown();
            assertThat(load.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            producer.flush();
            producer.close();
            assertThat(failedSends).as("requests the broker did not take").hasValue(0);

            // Every request has a decision, as the client saw it.
            await("every transaction answered").atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(200))
                    .until(() -> answered.keySet().containsAll(expectedFingerprint.keySet())
                            && answeredByCopy.keySet().containsAll(askedForCopy));
            tailing.set(false);
            waiter.join(10_000);

            Map<String, List<ConsumerRecord<String, byte[]>>> onTheLog = readAll(bootstrap, Topics.TRANSACTION_DECISIONS.name());
            List<ConsumerRecord<String, byte[]>> deadLetters = readAll(bootstrap, Topics.deadLetterOf(Topics.TRANSACTION_REQUESTS).name())
                    .values().stream().flatMap(List::stream).toList();
            assertThat(onTheLog.keySet()).containsAll(expectedFingerprint.keySet());
            int duplicates = 0;
            for (var entry : onTheLog.entrySet()) {
                String id = entry.getKey();
                List<ConsumerRecord<String, byte[]>> written = entry.getValue();
                byte[] first = written.get(0).value();
                assertThat(written).as("every decision of %s is the same bytes", id)
                        .allSatisfy(r -> assertThat(r.value()).isEqualTo(first));
                assertThat(answered.get(id)).as("what the client answered for %s is on the log", id).isEqualTo(first);
                if (askedForCopy.contains(id)) {
                    assertThat(answeredByCopy.get(id)).as("every copy of %s is the decision on the log", id)
                            .allSatisfy(copy -> assertThat(copy).isEqualTo(first));
                }
                assertThat(decisions.deserialize(Topics.TRANSACTION_DECISIONS.name(), first).getTransactionId()).isEqualTo(id);
                String madeFor = header(written.get(0), Decisions.REQUEST_FINGERPRINT_HEADER);
                Set<String> others = conflicting.getOrDefault(id, Set.of());
                if (others.isEmpty()) {
                    assertThat(madeFor).as("%s decided for its one request", id).isEqualTo(expectedFingerprint.get(id));
                } else {
                    // Either request may have reached the decided topic first; the other one is the dead letter.
                    Set<String> both = new java.util.HashSet<>(others);
                    both.add(expectedFingerprint.get(id));
                    assertThat(both).contains(madeFor);
                    both.remove(madeFor);
                    Set<String> deadFor = deadLetters.stream().filter(d -> d.key().equals(id))
                            .map(d -> header(d, DeadLetterHeaders.REASON)).filter(reason -> reason.contains("already decided"))
                            .map(reason -> both.stream().filter(reason::contains).findFirst().orElse("?"))
                            .collect(Collectors.toSet());
                    assertThat(deadFor).as("the request of %s that was not decided is dead-lettered", id).isEqualTo(both);
                }
                duplicates += written.size() - 1;
            }
            assertThat(askedForCopy).as("every other request asked for a copy").hasSizeGreaterThan(onTheLog.size() / 3);
            assertThat(answeredByCopy.keySet()).as("copies only for the requests that asked").isEqualTo(askedForCopy);
            System.out.printf("DecisionCrashIT: %d transactions, %d identical duplicate decisions, %d dead letters, %d answered from a reply copy%n",
                    onTheLog.size(), duplicates, deadLetters.size(), answeredByCopy.size());
            System.out.printf("DecisionCrashIT: %d copies in all%n", answeredByCopy.values().stream().mapToInt(List::size).sum());
        } finally {
            load.shutdownNow();
            tailing.set(false);
            if (waiter != null) {
                waiter.join(10_000);
            }
            apps.forEach(SupervisedChild::close);
            broker.close();
        }
    }

    /** Every other transaction's requests name reply partition {@value #REPLY_PARTITION}, as an ingest instance reading it would. */
    private static boolean asksForCopy(int i) {
        return i % 2 == 1;
    }

    private static void send(KafkaProducer<String, byte[]> producer, AvroSerializer<TransactionAuthorizationRequested> serializer,
                             TransactionAuthorizationRequested r, AtomicInteger failed, boolean askForCopy) {
        var record = new ProducerRecord<>(Topics.TRANSACTION_REQUESTS.name(), r.getCardToken(),
                serializer.serialize(Topics.TRANSACTION_REQUESTS.name(), r));
        if (askForCopy) {
            record.headers().add(Decisions.REPLY_PARTITION_HEADER, Integer.toString(REPLY_PARTITION).getBytes(StandardCharsets.US_ASCII));
        }
        producer.send(record, (meta, e) -> {
            if (e != null) {
                failed.incrementAndGet();
            }
        });
    }

    private static void awaitSent(AtomicInteger sent, int count) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20)).until(() -> sent.get() >= count);
    }

    private static ChildSpec appSpec(Path dir, String bootstrap, String registryUrl, String instance) {
        Path home = dir.resolve(instance);
        List<String> command = List.of(ChildSpec.javaBin(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), DecisionAppChild.class.getName(),
                bootstrap, registryUrl, home.resolve("state").toString(), instance, StreamsConfig.AT_LEAST_ONCE);
        return new ChildSpec("decisions-" + instance, command, Map.of(), dir, dir.resolve(instance + ".log"),
                new Readiness.StdoutLine(DecisionAppChild.READY), Duration.ofSeconds(90), Duration.ofSeconds(15));
    }

    /** Every record of {@code topic} up to its end, by key, in offset order per partition. */
    private static Map<String, List<ConsumerRecord<String, byte[]>>> readAll(String bootstrap, String topic) {
        Map<String, List<ConsumerRecord<String, byte[]>>> byKey = new HashMap<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (var r : consumer.poll(Duration.ofMillis(100))) {
                    byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
                }
                return partitions.stream().allMatch(p -> consumer.position(p) >= ends.get(p));
            });
        }
        return byKey;
    }

    private static String header(ConsumerRecord<String, byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
