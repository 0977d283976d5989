package io.streamhouse.domain.decision;

import java.math.BigDecimal;
import java.util.EnumMap;
import java.util.Map;

/**
 * What is known about a card at the moment of one request (by event time), the request itself included: how many
 * payments and how much money in the request's currency over each window, and how many distinct merchants and
 * merchant countries over each window — all of them, and those of payments where the card itself was present
 * (card-present, contactless, ATM), which say where the card is; an online merchant's country does not. Payments in other currencies count in the counts, not in the spend.
 */
public record CardFeatures(Map<FeatureWindow, Integer> count, Map<FeatureWindow, BigDecimal> spend,
                           Map<FeatureWindow, Integer> distinctMerchants, Map<FeatureWindow, Integer> distinctCountries,
                           Map<FeatureWindow, Integer> distinctPresentCountries,
                           Map<FeatureWindow, java.util.List<String>> transactionIds) {

    /** Most transaction ids a rule reports as contributing (the newest ones); counts are never truncated. */
    public static final int MAX_REPORTED_TRANSACTIONS = 50;

    public CardFeatures {
        count = Map.copyOf(count);
        spend = Map.copyOf(spend);
        distinctMerchants = Map.copyOf(distinctMerchants);
        distinctCountries = Map.copyOf(distinctCountries);
        distinctPresentCountries = Map.copyOf(distinctPresentCountries);
        transactionIds = Map.copyOf(transactionIds);
        for (FeatureWindow w : FeatureWindow.values()) {
            if (!count.containsKey(w) || !spend.containsKey(w) || !distinctMerchants.containsKey(w)
                    || !distinctCountries.containsKey(w) || !distinctPresentCountries.containsKey(w)
                    || !transactionIds.containsKey(w)) {
                throw new IllegalArgumentException("every feature needs a value for window " + w.label());
            }
        }
    }

    /** Features of a card with no history but the request itself. */
    public static CardFeatures firstPayment(String transactionId, BigDecimal amount) {
        Map<FeatureWindow, Integer> one = new EnumMap<>(FeatureWindow.class);
        Map<FeatureWindow, BigDecimal> spend = new EnumMap<>(FeatureWindow.class);
        Map<FeatureWindow, java.util.List<String>> ids = new EnumMap<>(FeatureWindow.class);
        for (FeatureWindow w : FeatureWindow.values()) {
            one.put(w, 1);
            spend.put(w, amount);
            ids.put(w, java.util.List.of(transactionId));
        }
        return new CardFeatures(one, spend, one, one, one, ids);
    }

    /** The transaction ids behind a window's figures, newest last, at most {@link #MAX_REPORTED_TRANSACTIONS}. */
    public String reportedTransactions(FeatureWindow window) {
        java.util.List<String> all = transactionIds.get(window);
        return String.join(",", all.subList(Math.max(0, all.size() - MAX_REPORTED_TRANSACTIONS), all.size()));
    }
}
