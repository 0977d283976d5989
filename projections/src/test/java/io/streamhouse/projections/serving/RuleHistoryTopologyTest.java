package io.streamhouse.projections.serving;

import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.domain.event.AuditEvent;
import io.streamhouse.domain.event.AuditOutcome;
import io.streamhouse.domain.state.RuleHistory;
import io.streamhouse.domain.state.RuleVersionEntry;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.plumbing.OutputTopics;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** Given audit events of every kind, expect each rule's written versions in the history store, newest first. */
class RuleHistoryTopologyTest {
    private final TopicSerdes serdes = new RegistryTopicSerdes(new InMemorySchemaRegistryClient());
    private TopologyTestDriver driver;
    private TestInputTopic<String, AuditEvent> audit;
    private int sequence;

    @BeforeEach
    void start() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "rule-history-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        StreamsBuilder builder = new StreamsBuilder();
        RuleHistoryTopology.addTo(builder, serdes, OutputTopics.LIVE, new OpenStores());
        driver = new TopologyTestDriver(builder.build(), props);
        audit = driver.createInputTopic(Topics.AUDIT_EVENTS.name(), new StringSerializer(),
                serdes.valueSerde(Topics.AUDIT_EVENTS).serializer());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private AuditEvent event(String actor, AuditAction action, AuditOutcome outcome, String ruleId, Map<String, String> details,
                             Instant at) {
        return AuditEvent.newBuilder()
                .setEnvelope(SampleEvents.envelope("audit-" + (++sequence), actor, at, AuditEvent.class))
                .setSubject(actor).setRoles(List.of("rules-admin")).setAction(action).setResourceType("rule")
                .setResource(ruleId).setDetails(details).setChannel("http").setService("streamhouse-api")
                .setInstance("test").setOutcome(outcome).setStatus(outcome == AuditOutcome.SUCCESS ? 202 : 400).build();
    }

    private void written(String actor, String ruleId, int version, String threshold, Instant at) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put(RuleHistories.VERSION, Integer.toString(version));
        details.put(RuleHistories.KIND, "amount-over");
        details.put(RuleHistories.ENABLED, "true");
        details.put(RuleHistories.OUTCOME, "REVIEW");
        details.put(RuleHistories.WEIGHT, "1.0");
        details.put(RuleHistories.PARAMETER_PREFIX + "threshold", threshold);
        audit.pipeInput(actor, event(actor, AuditAction.RULE_CHANGED, AuditOutcome.SUCCESS, ruleId, details, at));
    }

    private RuleHistory history(String ruleId) {
        VersionedKeyValueStore<String, RuleHistory> store = driver.getVersionedKeyValueStore(ServingStores.RULE_HISTORY);
        VersionedRecord<RuleHistory> latest = store.get(ruleId);
        return latest == null ? null : latest.value();
    }

    private static List<Integer> versions(RuleHistory h) {
        return h.getVersions().stream().map(RuleVersionEntry::getVersion).toList();
    }

    @Test
    void versionsArrivingOutOfOrderAreListedNewestFirstWithTheirAuthors() {
        written("bob", "r-1", 2, "900", Times.T0.plusSeconds(60));
        written("alice", "r-1", 1, "1000", Times.T0);
        written("carol", "r-1", 3, "800", Times.T0.plusSeconds(120));

        RuleHistory h = history("r-1");
        assertThat(versions(h)).containsExactly(3, 2, 1);
        assertThat(h.getVersions()).extracting(RuleVersionEntry::getChangedBy).containsExactly("carol", "bob", "alice");
        RuleVersionEntry first = h.getVersions().get(2);
        assertThat(first.getParameters()).containsExactly(Map.entry("threshold", "1000"));
        assertThat(first.getKind()).isEqualTo("amount-over");
        assertThat(first.getEnabled()).isTrue();
        assertThat(first.getWeight()).isEqualTo(1.0);
        assertThat(first.getChangedAt()).isEqualTo(Times.T0);
        assertThat(first.getChangedByRoles()).containsExactly("rules-admin");
        assertThat(first.getChannel()).isEqualTo("http");
    }

    @Test
    void failedDeniedAndUnrelatedEventsAreNotVersions() {
        written("alice", "r-1", 1, "1000", Times.T0);
        audit.pipeInput("mallory", event("mallory", AuditAction.RULE_CHANGED, AuditOutcome.FAILURE, "r-1",
                Map.of(RuleHistories.VERSION, "2"), Times.T0.plusSeconds(1)));
        audit.pipeInput("mallory", event("mallory", AuditAction.RULE_CHANGED, AuditOutcome.DENIED, "r-1",
                Map.of(RuleHistories.VERSION, "3"), Times.T0.plusSeconds(2)));
        audit.pipeInput("rita", event("rita", AuditAction.DECISION_READ, AuditOutcome.SUCCESS, "r-1",
                Map.of(RuleHistories.VERSION, "4"), Times.T0.plusSeconds(3)));
        // A rule change audited before the events carried the definition: nothing says what was written.
        audit.pipeInput("old", event("old", AuditAction.RULE_CHANGED, AuditOutcome.SUCCESS, "r-1", Map.of(),
                Times.T0.plusSeconds(4)));

        assertThat(versions(history("r-1"))).containsExactly(1);
    }

    @Test
    void twoRulesAreKeptApart() {
        written("alice", "r-1", 1, "1000", Times.T0);
        written("alice", "r-2", 1, "5", Times.T0.plusSeconds(1));
        written("bob", "r-2", 2, "6", Times.T0.plusSeconds(2));

        assertThat(versions(history("r-1"))).containsExactly(1);
        assertThat(versions(history("r-2"))).containsExactly(2, 1);
        assertThat(history("r-2").getVersions().get(0).getParameters()).containsEntry("threshold", "6");
        assertThat(history("r-3")).isNull();
    }

    @Test
    void aVersionWrittenTwiceKeepsItsEarlierChange() {
        // Two instances bootstrapping at once both write and audit version 1.
        written("system:rules-bootstrap", "r-1", 1, "1000", Times.T0.plusSeconds(5));
        written("system:rules-bootstrap-other", "r-1", 1, "1000", Times.T0);
        written("late-twin", "r-1", 1, "1000", Times.T0.plusSeconds(9));

        RuleHistory h = history("r-1");
        assertThat(versions(h)).containsExactly(1);
        assertThat(h.getVersions().get(0).getChangedBy()).isEqualTo("system:rules-bootstrap-other");
    }

    @Test
    void aCutTextIsMarkedAndAnUnparsableVersionGoesToTheDeadLetters() {
        Map<String, String> details = new LinkedHashMap<>(Map.of(RuleHistories.VERSION, "1", RuleHistories.DESCRIPTION, "abc…",
                RuleHistories.TRUNCATED, "description,parameter.note"));
        audit.pipeInput("alice", event("alice", AuditAction.RULE_CHANGED, AuditOutcome.SUCCESS, "r-1", details, Times.T0));
        audit.pipeInput("alice", event("alice", AuditAction.RULE_CHANGED, AuditOutcome.SUCCESS, "r-1",
                Map.of(RuleHistories.VERSION, "two"), Times.T0.plusSeconds(1)));

        assertThat(history("r-1").getVersions().get(0).getTruncated()).containsExactly("description", "parameter.note");
        assertThat(versions(history("r-1"))).containsExactly(1);
        var dlq = driver.createOutputTopic(Topics.AUDIT_EVENTS.name() + ".dlq",
                new org.apache.kafka.common.serialization.StringDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer());
        assertThat(dlq.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("r-1");
    }
}
