package io.streamhouse.api.serving;

import io.streamhouse.domain.state.CardActivity;
import io.streamhouse.domain.state.CardActivityEntry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@code GET /v1/cards/{cardToken}/activity}: the card's recent authorization requests as the decision topology
 * keeps them (the last 24 h before its newest request), newest first.
 *
 * @param stale    true when a standby replica answered (the active one could not): it may lack the newest requests
 * @param servedBy the instance whose replica answered ({@code host:port}, or {@code local} without serving routing)
 */
public record CardActivityView(String cardToken, List<Entry> activity, boolean stale, String servedBy) {

    /**
     * @param amount  the exact amount as a decimal string (scale 4, as on the request)
     * @param outcome the payment's decision (ALLOW, REVIEW, BLOCK), or null when the answering instance holds no
     *                replica of that decision (or it is not decided yet)
     */
    public record Entry(String transactionId, Instant occurredAt, String amount, String currency, String merchantId,
                        String merchantCountry, String channel, String outcome) {
    }

    /** The store's entries (oldest first) newest first, each with its outcome as {@code outcomeOf} finds it. */
    public static CardActivityView of(CardActivity activity, Function<String, String> outcomeOf, boolean stale, String servedBy) {
        List<CardActivityEntry> entries = activity.getEntries();
        List<Entry> newestFirst = new ArrayList<>(entries.size());
        for (int i = entries.size() - 1; i >= 0; i--) {
            CardActivityEntry e = entries.get(i);
            newestFirst.add(new Entry(e.getTransactionId(), e.getOccurredAt(), e.getAmount().getAmount().toPlainString(),
                    e.getAmount().getCurrency(), e.getMerchantId(), e.getMerchantCountry(), e.getChannel(),
                    outcomeOf.apply(e.getTransactionId())));
        }
        return new CardActivityView(activity.getCardToken(), List.copyOf(newestFirst), stale, servedBy);
    }
}
