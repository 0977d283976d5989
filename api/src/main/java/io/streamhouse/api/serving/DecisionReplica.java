package io.streamhouse.api.serving;

import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.projections.DecisionLookupProjection;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * This instance's own replicas of the decision app's {@code decisions-by-transaction} store, partition by partition:
 * a partition not held here (or not queryable now: starting, rebalancing) is left out of the answer, never guessed.
 */
public final class DecisionReplica implements DecisionOutcomes.LocalReplica {
    private final KafkaStreams decisions;

    public DecisionReplica(KafkaStreams decisions) {
        this.decisions = decisions;
    }

    @Override
    public DecisionOutcomes.Held read(Collection<String> transactionIds, boolean standbyToo) {
        Map<Integer, List<String>> byPartition = new HashMap<>();
        for (String id : transactionIds) {
            byPartition.computeIfAbsent(DecisionOutcomes.partitionOf(id), p -> new java.util.ArrayList<>()).add(id);
        }
        Set<Integer> held = new TreeSet<>();
        Map<String, String> outcomes = new HashMap<>();
        for (var e : byPartition.entrySet()) {
            var query = StoreQueryParameters.fromNameAndType(DecisionLookupProjection.STORE,
                    QueryableStoreTypes.<String, TransactionDecision>keyValueStore()).withPartition(e.getKey());
            try {
                ReadOnlyKeyValueStore<String, TransactionDecision> store = decisions.store(standbyToo ? query.enableStaleStores() : query);
                Map<String, String> here = new HashMap<>();
                for (String id : e.getValue()) {
                    TransactionDecision d = store.get(id);
                    if (d != null) {
                        here.put(id, d.getOutcome().name());
                    }
                }
                outcomes.putAll(here);
                held.add(e.getKey());
            } catch (InvalidStateStoreException notHere) {
                // not held here, or not queryable now: another instance is asked
            }
        }
        return new DecisionOutcomes.Held(held, outcomes);
    }
}
