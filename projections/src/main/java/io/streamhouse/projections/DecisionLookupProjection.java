package io.streamhouse.projections;

import io.streamhouse.plumbing.DeadLetters;
import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The latest decision of each transaction, by transaction id, for {@code GET /v1/transactions/{id}/decision}.
 * Fed from the decisions topic (not from inside the decision topology) so that it is rebuilt from the log alone.
 */
public final class DecisionLookupProjection {
    public static final String STORE = "decisions-by-transaction";

    public static void addTo(StreamsBuilder builder, TopicSerdes serdes) {
        addTo(builder, serdes, OutputTopics.LIVE);
    }

    /** @param topics where the decisions are read from and unreadable ones dead-lettered (a test's own copies) */
    public static void addTo(StreamsBuilder builder, TopicSerdes serdes, OutputTopics topics) {
        var decisionSerde = serdes.valueSerde(Topics.TRANSACTION_DECISIONS);
        DeadLetters.readOrDeadLetter(builder, Topics.TRANSACTION_DECISIONS, decisionSerde.deserializer(),
                        TransactionDecision::getTransactionId, "decision-lookup", topics)
                .toTable(Named.as("decision-lookup-table"),
                        Materialized.<String, TransactionDecision, KeyValueStore<Bytes, byte[]>>as(STORE)
                                .withKeySerde(Serdes.String())
                                .withValueSerde(decisionSerde));
    }

    private DecisionLookupProjection() {
    }
}
