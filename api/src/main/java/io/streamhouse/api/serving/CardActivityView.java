package io.streamhouse.api.serving;

import io.streamhouse.domain.state.CardActivity;
import io.streamhouse.domain.state.CardActivityEntry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/cards/{cardToken}/activity}: the card's recent authorization requests as the decision topology
 * keeps them (the last 24 h before its newest request), newest first.
 *
 * @param stale    true when a standby replica answered (the active one could not): it may lack the newest requests
 * @param servedBy the instance whose replica answered ({@code host:port}, or {@code local} without serving routing)
 */
public record CardActivityView(String cardToken, List<Entry> activity, boolean stale, String servedBy) {

    /**
     * @param amount             the exact amount as a decimal string (scale 4, as on the request)
     * @param outcome            the payment's decision (ALLOW, REVIEW, BLOCK), from whichever instance holds it; null
     *                           when it is not decided yet, or when {@code outcomeUnavailable}
     * @param outcomeStale       the outcome came from a standby replica (the active one could not answer)
     * @param outcomeUnavailable no instance holding the decision's partition answered: whether the payment was decided
     *                           is unknown (not the same as not decided)
     */
    public record Entry(String transactionId, Instant occurredAt, String amount, String currency, String merchantId,
                        String merchantCountry, String channel, String outcome, boolean outcomeStale,
                        boolean outcomeUnavailable) {
    }

    /** The store's entries (oldest first) newest first, their outcomes not looked up yet ({@link #withOutcomes}). */
    public static CardActivityView of(CardActivity activity, boolean stale, String servedBy) {
        List<CardActivityEntry> entries = activity.getEntries();
        List<Entry> newestFirst = new ArrayList<>(entries.size());
        for (int i = entries.size() - 1; i >= 0; i--) {
            CardActivityEntry e = entries.get(i);
            newestFirst.add(new Entry(e.getTransactionId(), e.getOccurredAt(), e.getAmount().getAmount().toPlainString(),
                    e.getAmount().getCurrency(), e.getMerchantId(), e.getMerchantCountry(), e.getChannel(), null, false, false));
        }
        return new CardActivityView(activity.getCardToken(), List.copyOf(newestFirst), stale, servedBy);
    }

    /** The same entries, each with its outcome as found (an id missing from {@code outcomes} counts as unavailable). */
    public CardActivityView withOutcomes(Map<String, DecisionOutcomes.Outcome> outcomes) {
        List<Entry> filled = new ArrayList<>(activity.size());
        for (Entry e : activity) {
            DecisionOutcomes.Outcome o = outcomes.getOrDefault(e.transactionId(), DecisionOutcomes.Outcome.UNAVAILABLE);
            filled.add(new Entry(e.transactionId(), e.occurredAt(), e.amount(), e.currency(), e.merchantId(),
                    e.merchantCountry(), e.channel(), o.outcome(), o.stale(), o.unavailable()));
        }
        return new CardActivityView(cardToken, List.copyOf(filled), stale, servedBy);
    }
}
