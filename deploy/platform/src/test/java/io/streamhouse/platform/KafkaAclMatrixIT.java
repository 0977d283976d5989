package io.streamhouse.platform;

import io.streamhouse.broker.BrokerOptions;
import io.streamhouse.broker.BrokerProcess;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.streamhouse.security.kafka.KafkaPrincipal.API;
import static io.streamhouse.security.kafka.KafkaPrincipal.CDC_NORMALISER;
import static io.streamhouse.security.kafka.KafkaPrincipal.CEP;
import static io.streamhouse.security.kafka.KafkaPrincipal.CONNECT;
import static io.streamhouse.security.kafka.KafkaPrincipal.DECISIONS;
import static io.streamhouse.security.kafka.KafkaPrincipal.INGEST;
import static io.streamhouse.security.kafka.KafkaPrincipal.LAKE_QUERY;
import static io.streamhouse.security.kafka.KafkaPrincipal.LOAD_TESTS;
import static io.streamhouse.security.kafka.KafkaPrincipal.PLATFORM;
import static io.streamhouse.security.kafka.KafkaPrincipal.REGISTRY;
import static io.streamhouse.security.kafka.KafkaPrincipal.REPLAY;
import static io.streamhouse.security.kafka.KafkaPrincipal.SERVING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The Kafka ACL matrix (issue #19 item 4) on a broker that takes SASL/SCRAM-SHA-512 logins only, with the platform's
 * {@link KafkaAcls} applied as {@code ./streamhouse up} applies them: each service's user produces and consumes for real,
 * and is allowed where its job needs it and denied elsewhere — ingest cannot write decisions nor read customers, the
 * serving app cannot write rules, no service but the api writes rules. Also: exactly-once's transactional ids and a
 * Streams app's own topics are its own, a wrong password or a client without SASL gets nowhere.
 *
 * <p>Its own broker (the suite's shared one runs without authentication): ~10 s.
 */
class KafkaAclMatrixIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Compacted topics (profiles, rules, lineage) take keyed records only. */
    private static final byte[] KEY = "acl-matrix".getBytes(StandardCharsets.UTF_8);
    private static BrokerProcess broker;
    private static Path credentials;
    private static final Map<KafkaPrincipal, KafkaProducer<byte[], byte[]>> PRODUCERS = new EnumMap<>(KafkaPrincipal.class);

    @BeforeAll
    static void startSecuredBroker() throws Exception {
        Path dir = TestDirs.fresh("acl");
        credentials = dir.resolve("credentials");
        broker = BrokerProcess.start(BrokerOptions.ephemeral(dir.resolve("kafka")).withCredentials(credentials));
        try (Admin admin = Admin.create(settings(PLATFORM).admin(broker.bootstrapServers()))) {
            TopicProvisioner.ensure(admin, Topics.allWithDeadLetters());
            KafkaAcls.Applied first = KafkaAcls.apply(admin);
            assertThat(first.created()).as("ACLs created on a fresh broker").isEqualTo(first.total()).isPositive();
            assertThat(KafkaAcls.apply(admin).created()).as("applying again (every start) creates nothing").isZero();
        }
        // One record on every topic, so an allowed read has something to read.
        try (KafkaProducer<byte[], byte[]> platform = producer(PLATFORM)) {
            for (var t : Topics.allWithDeadLetters()) {
                platform.send(new ProducerRecord<>(t.name(), 0, KEY, "seed".getBytes(StandardCharsets.UTF_8))).get();
            }
        }
    }

    @AfterAll
    static void stop() {
        PRODUCERS.values().forEach(KafkaProducer::close);
        if (broker != null) {
            broker.close();
        }
    }

    static Stream<Arguments> writes() {
        return Stream.of(
                // ingest: the event logs it accepts, its audit trail; never decisions or rules
                allowed(INGEST, Topics.TRANSACTION_REQUESTS.name()), allowed(INGEST, Topics.PARCEL_SCANS.name()),
                allowed(INGEST, Topics.AUDIT_EVENTS.name()), allowed(INGEST, "fleet.vehicles.telemetry.dlq"),
                denied(INGEST, Topics.TRANSACTION_DECISIONS.name()), denied(INGEST, Topics.RULES.name()),
                denied(INGEST, Topics.FRAUD_ALERTS.name()),
                // the decision app: decisions and review-outcome alerts
                allowed(DECISIONS, Topics.TRANSACTION_DECISIONS.name()), allowed(DECISIONS, Topics.FRAUD_ALERTS.name()),
                denied(DECISIONS, Topics.RULES.name()), denied(DECISIONS, Topics.TRANSACTION_REQUESTS.name()),
                // the serving app: profiles only; it cannot write rules nor the audit trail it reads
                allowed(SERVING, Topics.CUSTOMER_PROFILES.name()), denied(SERVING, Topics.AUDIT_EVENTS.name()),
                denied(SERVING, Topics.RULES.name()), denied(SERVING, Topics.TRANSACTION_DECISIONS.name()),
                // the api's request path: rules, reviews, audit
                allowed(API, Topics.RULES.name()), allowed(API, Topics.REVIEW_OUTCOMES.name()),
                denied(API, Topics.TRANSACTION_DECISIONS.name()), denied(API, Topics.FRAUD_ALERTS.name()),
                allowed(CDC_NORMALISER, Topics.CUSTOMERS.name()), denied(CDC_NORMALISER, Topics.TRANSACTION_DECISIONS.name()),
                allowed(CEP, Topics.PARCEL_ALERTS.name()), allowed(CEP, "logistics.parcels.scanned.late"),
                denied(CEP, Topics.TRANSACTION_DECISIONS.name()), denied(CEP, Topics.RULES.name()),
                allowed(CONNECT, Topics.CDC_SHOP_CHANGES.name()), denied(CONNECT, Topics.TRANSACTION_DECISIONS.name()),
                denied(REGISTRY, Topics.RULES.name()),
                denied(REPLAY, Topics.TRANSACTION_DECISIONS.name()), denied(REPLAY, Topics.RULES.name()),
                denied(LAKE_QUERY, Topics.TRANSACTION_DECISIONS.name()),
                allowed(LOAD_TESTS, Topics.TRANSACTION_REQUESTS.name()), denied(LOAD_TESTS, Topics.RULES.name()),
                denied(LOAD_TESTS, Topics.TRANSACTION_DECISIONS.name()));
    }

    static Stream<Arguments> reads() {
        return Stream.of(
                // ingest answers a payment from its decision; it reads no customer data, rules or audit trail
                allowed(INGEST, Topics.TRANSACTION_DECISIONS.name()),
                denied(INGEST, Topics.CUSTOMERS.name()), denied(INGEST, Topics.RULES.name()), denied(INGEST, Topics.AUDIT_EVENTS.name()),
                allowed(DECISIONS, Topics.TRANSACTION_REQUESTS.name()), allowed(DECISIONS, Topics.CUSTOMERS.name()),
                denied(DECISIONS, Topics.AUDIT_EVENTS.name()),
                allowed(SERVING, Topics.TRANSACTION_DECISIONS.name()), allowed(SERVING, Topics.PARCEL_SCANS.name()),
                // the rules' history reads the audit trail
                denied(SERVING, Topics.TRANSACTION_REQUESTS.name()), allowed(SERVING, Topics.AUDIT_EVENTS.name()),
                allowed(API, Topics.FRAUD_ALERTS.name()), allowed(API, Topics.RULES.name()),
                denied(API, Topics.TRANSACTION_REQUESTS.name()), denied(API, Topics.CUSTOMERS.name()),
                allowed(CDC_NORMALISER, Topics.CDC_SHOP_CHANGES.name()), denied(CDC_NORMALISER, Topics.TRANSACTION_REQUESTS.name()),
                allowed(CEP, Topics.TRANSACTION_REQUESTS.name()), denied(CEP, Topics.AUDIT_EVENTS.name()),
                allowed(CONNECT, Topics.AUDIT_EVENTS.name()), denied(CONNECT, "payments.transactions.requested.dlq"),
                denied(REGISTRY, Topics.TRANSACTION_REQUESTS.name()),
                allowed(REPLAY, Topics.TRANSACTION_REQUESTS.name()), allowed(REPLAY, Topics.AUDIT_EVENTS.name()),
                allowed(LAKE_QUERY, Topics.TRANSACTION_DECISIONS.name()), denied(LAKE_QUERY, "payments.transactions.decisions.dlq"));
    }

    @ParameterizedTest(name = "{0} writes {1}: {2}")
    @MethodSource("writes")
    void write(KafkaPrincipal principal, String topic, boolean allowed) throws Exception {
        var send = PRODUCERS.computeIfAbsent(principal, KafkaAclMatrixIT::producer)
                .send(new ProducerRecord<>(topic, 0, KEY, "x".getBytes(StandardCharsets.UTF_8)));
        if (allowed) {
            assertThat(send.get(WAIT.toSeconds(), TimeUnit.SECONDS).offset()).isPositive();
        } else {
            assertThatThrownBy(() -> send.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @ParameterizedTest(name = "{0} reads {1}: {2}")
    @MethodSource("reads")
    void read(KafkaPrincipal principal, String topic, boolean allowed) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(principal, null)) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = consumer.poll(Duration.ofMillis(500));
                } catch (TopicAuthorizationException e) {
                    assertThat(allowed).as(principal + " was denied reading " + topic + ": " + e.getMessage()).isFalse();
                    return;
                }
                if (!records.isEmpty()) {
                    assertThat(allowed).as(principal + " read " + topic).isTrue();
                    return;
                }
            }
            fail(principal + " neither read nor was denied " + topic + " within " + WAIT);
        }
    }

    @Test
    void exactlyOnceTransactionalIdsBelongToTheirApplication() {
        // Streams names its transactional ids <application id>-<process id>-<thread>.
        try (var p = transactional(DECISIONS, KafkaAcls.DECISIONS_APP + "-" + UUID.randomUUID() + "-0")) {
            p.initTransactions();
        }
        try (var p = transactional(CEP, KafkaAcls.CEP_GROUP + "-0-1")) {
            p.initTransactions();
        }
        try (var p = transactional(SERVING, KafkaAcls.DECISIONS_APP + "-" + UUID.randomUUID() + "-0")) {
            assertThatThrownBy(p::initTransactions).isInstanceOf(TransactionalIdAuthorizationException.class);
        }
        try (var p = transactional(INGEST, "anything")) {
            assertThatThrownBy(p::initTransactions).isInstanceOf(TransactionalIdAuthorizationException.class);
        }
    }

    @Test
    void aStreamsAppCreatesItsOwnTopicsOnly() throws Exception {
        String changelog = KafkaAcls.DECISIONS_APP + "-acl-test-changelog";
        try (Admin decisions = admin(DECISIONS); Admin serving = admin(SERVING)) {
            decisions.createTopics(List.of(new NewTopic(changelog, 1, (short) 1)), new CreateTopicsOptions().validateOnly(true))
                    .all().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThatThrownBy(() -> serving.createTopics(List.of(new NewTopic(changelog, 1, (short) 1)),
                    new CreateTopicsOptions().validateOnly(true)).all().get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            assertThatThrownBy(() -> decisions.createTopics(List.of(new NewTopic("rules.definitions.v2", 1, (short) 1)),
                    new CreateTopicsOptions().validateOnly(true)).all().get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void aConsumerGroupBelongsToItsApplication() {
        var offset = Map.of(new TopicPartition(Topics.TRANSACTION_DECISIONS.name(), 0), new OffsetAndMetadata(0));
        try (KafkaConsumer<byte[], byte[]> own = consumer(SERVING, KafkaAcls.SERVING_APP)) {
            own.commitSync(offset);
        }
        try (KafkaConsumer<byte[], byte[]> other = consumer(API, KafkaAcls.SERVING_APP)) {
            assertThatThrownBy(() -> other.commitSync(offset)).isInstanceOf(GroupAuthorizationException.class);
        }
    }

    @Test
    void aWrongPasswordOrNoSaslGetsNowhere() throws Exception {
        Path wrong = TestDirs.fresh("acl-wrong");
        Files.writeString(wrong.resolve(INGEST.userName() + ".password"), "0123456789abcdef");
        KafkaClientSettings forged = KafkaClientSettings.from(INGEST, Map.of(
                KafkaClientSettings.SECURITY_PROTOCOL_ENV, "SASL_PLAINTEXT",
                KafkaClientSettings.CREDENTIALS_DIR_ENV, wrong.toString())::get);
        try (Admin admin = Admin.create(forged.admin(broker.bootstrapServers(), Map.of(
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000)))) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
        KafkaClientSettings plaintext = KafkaClientSettings.from(INGEST, name -> null);
        try (Admin admin = Admin.create(plaintext.admin(broker.bootstrapServers(), Map.of(
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000)))) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .as("a client without SASL is never answered").isInstanceOf(ExecutionException.class);
        }
    }

    private static Arguments allowed(KafkaPrincipal principal, String topic) {
        return Arguments.of(principal, topic, true);
    }

    private static Arguments denied(KafkaPrincipal principal, String topic) {
        return Arguments.of(principal, topic, false);
    }

    private static KafkaClientSettings settings(KafkaPrincipal principal) {
        return KafkaClientSettings.from(principal, Map.of(
                KafkaClientSettings.SECURITY_PROTOCOL_ENV, "SASL_PLAINTEXT",
                KafkaClientSettings.CREDENTIALS_DIR_ENV, credentials.toString())::get);
    }

    private static Admin admin(KafkaPrincipal principal) {
        return Admin.create(settings(principal).admin(broker.bootstrapServers()));
    }

    private static KafkaProducer<byte[], byte[]> producer(KafkaPrincipal principal) {
        return new KafkaProducer<>(settings(principal).producer(broker.bootstrapServers(), Map.of(
                ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) WAIT.toMillis(),
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) WAIT.toMillis(),
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static KafkaProducer<byte[], byte[]> transactional(KafkaPrincipal principal, String transactionalId) {
        return new KafkaProducer<>(settings(principal).producer(broker.bootstrapServers(), Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) WAIT.toMillis())),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaPrincipal principal, String group) {
        Map<String, Object> own = new java.util.HashMap<>(Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) WAIT.toMillis()));
        if (group != null) {
            own.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        return new KafkaConsumer<>(settings(principal).consumer(broker.bootstrapServers(), own),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
