package io.streamhouse.projections.serving;

import io.streamhouse.domain.event.AuditEvent;
import io.streamhouse.domain.state.RuleHistory;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.plumbing.DeadLetters;
import io.streamhouse.plumbing.OutputTopics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

import java.time.Duration;

/**
 * Every version of every rule, with who wrote it, folded from {@code audit.events} into the versioned store
 * {@link ServingStores#RULE_HISTORY} (only its latest value is read: the whole history of a rule). The audit topic is
 * keyed by actor and holds every audited read too, so the events that record a written version are picked out first
 * ({@link RuleHistories#isWrittenVersion}) and only those are re-keyed by rule id through a small repartition topic.
 *
 * <p>Read once: the app's committed offsets say how far it got, so a restart goes on from there and restores the
 * store from its changelog instead of reading the audit topic again. Reading a big audit topic the first time is
 * ordinary processing in state RUNNING, which readiness does not wait for. An audit event that cannot be read or
 * folded goes to {@code audit.events.dlq}.
 */
public final class RuleHistoryTopology {
    /** Partitions of the repartition topic, so of the store: as many as the rules topic has. */
    public static final int PARTITIONS = Topics.RULES.partitions();
    /** Only the latest value is read; kept short so older values of a rule's history go soon. */
    static final Duration RETENTION = Duration.ofHours(1);

    public static void addTo(StreamsBuilder builder, TopicSerdes serdes, OutputTopics outputs, OpenStores openStores) {
        builder.addStateStore(Stores.versionedKeyValueStoreBuilder(
                Stores.persistentVersionedKeyValueStore(ServingStores.RULE_HISTORY, RETENTION, RETENTION.dividedBy(4)),
                Serdes.String(), serdes.stateSerde(RuleHistory.class)));
        var auditSerde = serdes.valueSerde(Topics.AUDIT_EVENTS);
        var serializer = auditSerde.serializer();
        String deadLetters = outputs.deadLetterOf(Topics.AUDIT_EVENTS);
        ServingTopology.deadLetter(DeadLetters.readOrDeadLetter(builder, Topics.AUDIT_EVENTS, auditSerde.deserializer(),
                        e -> e.getEnvelope().getKey(), "rule-history-audit", outputs)
                .filter((k, e) -> RuleHistories.isWrittenVersion(e), Named.as("rule-history-written-versions"))
                .selectKey((k, e) -> e.getResource(), Named.as("rule-history-by-rule"))
                .repartition(Repartitioned.<String, AuditEvent>as(ServingStores.RULE_HISTORY_REPARTITION)
                        .withKeySerde(Serdes.String()).withValueSerde(auditSerde).withNumberOfPartitions(PARTITIONS))
                .process(() -> new FoldIntoVersionedStore<AuditEvent, RuleHistory>(ServingStores.RULE_HISTORY,
                                RuleHistories::fold, e -> e.getEnvelope().getOccurredAt(),
                                e -> serializer.serialize(Topics.AUDIT_EVENTS.name(), e), e -> deadLetters, openStores),
                        Named.as("rule-history-fold"), ServingStores.RULE_HISTORY), "rule-history");
    }

    private RuleHistoryTopology() {
    }
}
