package io.streamhouse.api.serving;

import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.state.CardActivity;
import io.streamhouse.projections.DecisionLookupProjection;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;

import java.util.List;
import java.util.Optional;

/**
 * This instance's own replica of a card's {@code card-activity} partition, in the decision application, with each
 * payment's outcome from whatever replica of {@code decisions-by-transaction} is here (that store is partitioned by
 * transaction id, so with several instances some outcomes may be held elsewhere: those are left null, not fetched).
 */
public final class CardActivityReplica implements CardActivityRouting.LocalReplica {
    private final KafkaStreams decisions;
    private final String servedBy;

    public CardActivityReplica(KafkaStreams decisions, String servedBy) {
        this.decisions = decisions;
        this.servedBy = servedBy;
    }

    @Override
    public Optional<CardActivityView> read(String cardToken, boolean standbyToo) {
        var query = StoreQueryParameters.fromNameAndType(DecisionTopology.CARD_ACTIVITY_STORE,
                QueryableStoreTypes.<String, CardActivity>keyValueStore()).withPartition(CardActivityRouting.partitionOf(cardToken));
        CardActivity activity;
        try {
            activity = decisions.store(standbyToo ? query.enableStaleStores() : query).get(cardToken);
        } catch (InvalidStateStoreException e) {
            return Optional.empty(); // not held here, or not queryable now (starting, rebalancing)
        }
        if (activity == null) {
            return Optional.of(new CardActivityView(cardToken, List.of(), standbyToo, servedBy));
        }
        return Optional.of(CardActivityView.of(activity, this::outcomeOf, standbyToo, servedBy));
    }

    private String outcomeOf(String transactionId) {
        try {
            TransactionDecision d = decisions.store(StoreQueryParameters.fromNameAndType(DecisionLookupProjection.STORE,
                    QueryableStoreTypes.<String, TransactionDecision>keyValueStore()).enableStaleStores()).get(transactionId);
            return d == null ? null : d.getOutcome().name();
        } catch (InvalidStateStoreException e) {
            return null;
        }
    }
}
