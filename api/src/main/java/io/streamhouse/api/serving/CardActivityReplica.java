package io.streamhouse.api.serving;

import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.state.CardActivity;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;

import java.util.List;
import java.util.Optional;

/**
 * This instance's own replica of a card's {@code card-activity} partition, in the decision application. The payments'
 * outcomes are not filled here: {@code decisions-by-transaction} is partitioned by transaction id, so with several
 * instances some are held elsewhere; the answering instance looks them all up ({@link DecisionOutcomes}).
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
        return Optional.of(CardActivityView.of(activity, standbyToo, servedBy));
    }
}
