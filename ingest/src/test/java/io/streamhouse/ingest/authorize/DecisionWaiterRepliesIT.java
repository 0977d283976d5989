package io.streamhouse.ingest.authorize;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.events.Fingerprints;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.ingest.IngestConfig;
import io.streamhouse.platform.SharedPlatform;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The waiter of an instance that reads its own replies ({@code streamhouse.authorize.replies=partition}) on the shared
 * broker: it is answered from the copy on its partition of the replies topic, and neither from another instance's
 * partition nor from the decisions topic, which it no longer reads. The decision topology's side (the copy, to the
 * partition the request named) is {@code DecisionTopologyTest}; both together are what the authorize benchmark runs.
 */
class DecisionWaiterRepliesIT {

    private static IngestConfig config(String replies, int partition) {
        var platform = SharedPlatform.get();
        // Quarkus' duration syntax ("1500ms"), as the app reads its defaults
        return new SmallRyeConfigBuilder().withMapping(IngestConfig.class)
                .withConverter(Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new PropertiesConfigSource(Map.of(
                        "streamhouse.kafka.bootstrap-servers", platform.bootstrapServers(),
                        "streamhouse.schema-registry.url", platform.schemaRegistryUrl().toString(),
                        "streamhouse.tokenization.key", "a-test-key-of-16-chars",
                        "streamhouse.authorize.replies", replies,
                        "streamhouse.authorize.reply-partition", Integer.toString(partition)), "test", 500))
                .build().getConfigMapping(IngestConfig.class);
    }

    private static TransactionAuthorizationRequested request(String transactionId) {
        return SampleEvents.transaction(transactionId, Cards.ALICE, "10", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0);
    }

    private static TransactionDecision decision(String transactionId) {
        var request = request(transactionId);
        return Decisions.toEvent(request, DefaultRules.ruleSet().decide(request,
                Features.of(CardFeatures.firstPayment(transactionId, request.getAmount().getAmount()))), Instant.now());
    }

    @Test
    void anInstanceOnItsReplyPartitionIsAnsweredFromItsCopyOnly() throws Exception {
        var waiter = new DecisionWaiter(config("partition", 3), OpenTelemetry.noop(), new SimpleMeterRegistry());
        try {
            assertThat(waiter.replyPartition()).as("what its requests name").isEqualTo(3);
            await().atMost(Duration.ofSeconds(60)).until(waiter::isTailing);
            String run = UUID.randomUUID().toString();
            var mine = waiter.await(run + "-mine");
            var elsewhere = waiter.await(run + "-elsewhere");
            var serializer = new AvroSerializer<>(new CachingSchemaRegistryClient(SharedPlatform.get().schemaRegistryUrl().toString()),
                    TransactionDecision.class, false);
            try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    SharedPlatform.get().bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
                for (String id : new String[]{run + "-elsewhere", run + "-mine"}) {
                    byte[] value = serializer.serialize(Topics.TRANSACTION_DECISIONS.name(), decision(id));
                    // The decision itself, for everyone; "elsewhere" is copied to another instance's partition, "mine" to 3.
                    producer.send(withFingerprint(new ProducerRecord<>(Topics.TRANSACTION_DECISIONS.name(), id, value), id)).get();
                    int partition = id.endsWith("-mine") ? 3 : 2;
                    producer.send(withFingerprint(new ProducerRecord<>(Topics.TRANSACTION_DECISION_REPLIES.name(), partition, id, value), id)).get();
                }
            }
            var answer = mine.get(30, TimeUnit.SECONDS);
            assertThat(answer.decision().getTransactionId()).isEqualTo(run + "-mine");
            assertThat(answer.isFor(fingerprintOf(run + "-mine"))).isTrue();
            // Written before "mine" on the same broker: a waiter reading partition 2 or the decisions topic had it first.
            assertThat(elsewhere).as("not on its partition: another instance's answer").isNotDone();
        } finally {
            waiter.close();
        }
    }

    @Test
    void byDefaultAnInstanceReadsEveryDecisionAndItsRequestsNameNoPartition() throws Exception {
        var waiter = new DecisionWaiter(config("all", 3), OpenTelemetry.noop(), new SimpleMeterRegistry());
        try {
            assertThat(waiter.replyPartition()).isEqualTo(-1);
        } finally {
            waiter.close();
        }
    }

    private static ProducerRecord<String, byte[]> withFingerprint(ProducerRecord<String, byte[]> record, String transactionId) {
        record.headers().add(Decisions.REQUEST_FINGERPRINT_HEADER, fingerprintOf(transactionId).getBytes(StandardCharsets.US_ASCII));
        return record;
    }

    private static String fingerprintOf(String transactionId) {
        return HexFormat.of().formatHex(Fingerprints.of(request(transactionId)));
    }
}
