package io.streamhouse.ingest.authorize;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.quarkus.runtime.Startup;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.SchemaPrefetch;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import io.streamhouse.ingest.IngestConfig;
import io.streamhouse.tracing.ForKafka;
import io.streamhouse.tracing.KafkaTracing;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Hands each waiting authorize request its decision as it appears on {@code payments.transactions.decisions}.
 * <p>
 * By default ({@code streamhouse.authorize.replies=all}) every ingest instance tails all partitions of the decisions topic
 * (read_committed, from the end at start-up, no consumer group), so the instance that took a request sees its decision
 * wherever it was decided. The cost is that each instance reads every decision; it decodes only those it has a request
 * waiting for, matched on the record key first ({@link DecisionMatcher}). With {@code replies=partition} it reads only
 * its own partition of the replies topic ({@code streamhouse.authorize.reply-partition}), which its requests name in a
 * header ({@link #replyPartition()}) and where the decision topology writes a copy of each of their decisions.
 * A waiter is registered before its request is published, and recent decisions are remembered, so a decision
 * cannot slip past: neither one that arrives before the waiter looks, nor one made for an earlier attempt of a
 * retried request. Decisions that cannot be read are skipped here (the decision projection dead-letters them).
 * A decision someone waits for is handed over inside a "process" span of the trace its headers carry (the authorize
 * request's trace, through the decision topology); the others cost no span. The consumer's lag is on /q/metrics.
 */
@ApplicationScoped
@Startup
public class DecisionWaiter {
    private static final Logger LOG = Logger.getLogger(DecisionWaiter.class);

    private final DecisionMatcher matcher;
    private final KafkaConsumer<String, byte[]> consumer;
    private final AvroDeserializer<TransactionDecision> deserializer;
    private final Thread poller;
    private final SchemaRegistryClient schemas;
    private final OpenTelemetry openTelemetry;
    private final KafkaClientMetrics metrics;
    private final int replyPartition;
    private volatile boolean running = true;
    private volatile boolean tailing;

    public DecisionWaiter(IngestConfig config, @ForKafka OpenTelemetry openTelemetry, MeterRegistry registry) {
        this.openTelemetry = openTelemetry;
        this.replyPartition = config.authorize().replies() == IngestConfig.Authorize.Replies.PARTITION
                ? config.authorize().replyPartition() : -1;
        if (config.authorize().replyPartition() < 0) {
            throw new IllegalArgumentException("streamhouse.authorize.reply-partition must be 0 or more, was "
                    + config.authorize().replyPartition());
        }
        this.schemas = new CachingSchemaRegistryClient(config.schemaRegistry().url());
        this.deserializer = new AvroDeserializer<>(schemas, TransactionDecision.class, false);
        this.matcher = new DecisionMatcher(config.authorize().recentDecisions(), this::decode);
        this.consumer = new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.INGEST).consumer(
                config.kafka().bootstrapServers(), Map.<String, Object>of(
                ConsumerConfig.CLIENT_ID_CONFIG, "streamhouse-ingest-decision-waiter",
                // The decision app may run exactly-once: never hand out a decision whose transaction may abort. At
                // least once (the default) its records are not transactional and read_committed sees them at once.
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000)),
                new StringDeserializer(), new ByteArrayDeserializer());
        // records-lag(-max) per partition, tagged client.id=streamhouse-ingest-decision-waiter
        this.metrics = new KafkaClientMetrics(consumer);
        this.metrics.bindTo(registry);
        this.poller = new Thread(this::run, "decision-waiter");
        this.poller.setDaemon(true);
        this.poller.start();
    }

    /** The decision of {@code transactionId}, when it is (or was recently) on the decisions topic. */
    public CompletableFuture<DecisionMatcher.Match> await(String transactionId) {
        return matcher.await(transactionId);
    }

    /** Stops waiting (the deadline passed, or the request was not written). */
    public void forget(String transactionId, CompletableFuture<DecisionMatcher.Match> future) {
        matcher.forget(transactionId, future);
    }

    /**
     * The partition of the replies topic this instance reads, for its requests' {@code streamhouse.reply.partition}
     * header; -1 when it tails every decision (its requests then carry no header).
     */
    public int replyPartition() {
        return replyPartition;
    }

    /** True once the topic's partitions are assigned and positioned: from then on no decision is missed. */
    public boolean isTailing() {
        return tailing;
    }

    private void run() {
        try {
            // Before tailing (readiness): the first decision read then needs no registry round trip.
            SchemaPrefetch.prefetch(schemas, List.of(tailed()));
            var partitions = partitions();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            tailing = true;
            while (running) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    arrived(record);
                }
            }
        } catch (WakeupException stopping) {
            // close() woke the consumer up
        } catch (RuntimeException e) {
            LOG.error("The decision waiter stopped; authorize requests will get the fallback answer", e);
        } finally {
            tailing = false;
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** The decisions topic, or the replies topic when this instance reads only its reply partition. */
    private Topic<String, TransactionDecision> tailed() {
        return replyPartition < 0 ? Topics.TRANSACTION_DECISIONS : Topics.TRANSACTION_DECISION_REPLIES;
    }

    /** Every partition of the decisions topic, or this instance's reply partition. */
    private List<TopicPartition> partitions() {
        String topic = tailed().name();
        var all = consumer.partitionsFor(topic, Duration.ofSeconds(60)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        if (replyPartition < 0) {
            return all;
        }
        if (replyPartition >= all.size()) {
            throw new IllegalStateException("streamhouse.authorize.reply-partition is " + replyPartition + " but " + topic
                    + " has " + all.size() + " partitions (0-" + (all.size() - 1) + ")");
        }
        return List.of(new TopicPartition(topic, replyPartition));
    }

    private void arrived(ConsumerRecord<String, byte[]> record) {
        Span span = matcher.isWaiting(record.key())
                ? KafkaTracing.startProcessing(openTelemetry, record.topic(), record.headers()) : null;
        String fingerprint = requestFingerprint(record);
        if (span == null) {
            matcher.arrived(record.key(), record.value(), fingerprint);
            return;
        }
        try (Scope ignored = span.makeCurrent()) {
            span.setAttribute("streamhouse.answered", matcher.arrived(record.key(), record.value(), fingerprint));
        } finally {
            span.end();
        }
    }

    private static String requestFingerprint(ConsumerRecord<String, byte[]> record) {
        Header h = record.headers().lastHeader(Decisions.REQUEST_FINGERPRINT_HEADER);
        return h == null ? null : new String(h.value(), StandardCharsets.US_ASCII);
    }

    private TransactionDecision decode(byte[] value) {
        try {
            return deserializer.deserialize(Topics.TRANSACTION_DECISIONS.name(), value);
        } catch (RuntimeException e) {
            LOG.warnf("Skipping an unreadable decision on %s: %s", Topics.TRANSACTION_DECISIONS.name(), e.getMessage());
            return null;
        }
    }

    @PreDestroy
    void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        poller.join(10_000);
        metrics.close();
        deserializer.close();
    }
}
