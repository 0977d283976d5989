package io.streamhouse.domain.decision;

import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.state.CardActivity;
import io.streamhouse.domain.state.CardActivityEntry;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pure functions over a card's recent activity. Everything is by event time ({@code occurredAt}), never the clock:
 * <ul>
 *   <li>A request's features cover the payments in {@code (t - window, t]} that have arrived, the request included.
 *       A payment that occurred after {@code t} but arrived earlier (out of order) does not count for it.</li>
 *   <li>A late payment is added to the state when it arrives and counts for every later decision whose window covers
 *       it; decisions already made are not revisited (the Detection issue's reconciliation re-evaluates late events).</li>
 *   <li>The same transaction id arriving twice (a retry) is recorded once.</li>
 *   <li>Entries older than the longest window before the newest entry are dropped, so the state stays bounded.</li>
 * </ul>
 */
public final class CardActivities {
    /** Channels in which the card itself is where the merchant is. */
    static final Set<String> PRESENT = Set.of(Channel.CARD_PRESENT.name(), Channel.CONTACTLESS.name(), Channel.ATM.name());

    public static CardActivity empty(String cardToken) {
        return CardActivity.newBuilder().setCardToken(cardToken).setEntries(new ArrayList<>()).build();
    }

    /** The features for {@code request}, assuming it has been {@link #record recorded} in {@code activity}. */
    public static CardFeatures features(CardActivity activity, TransactionAuthorizationRequested request) {
        Instant at = request.getEnvelope().getOccurredAt();
        String currency = request.getAmount().getCurrency();
        Map<FeatureWindow, Integer> count = new EnumMap<>(FeatureWindow.class);
        Map<FeatureWindow, BigDecimal> spend = new EnumMap<>(FeatureWindow.class);
        Map<FeatureWindow, Integer> merchants = new EnumMap<>(FeatureWindow.class);
        Map<FeatureWindow, Integer> countries = new EnumMap<>(FeatureWindow.class);
        Map<FeatureWindow, Integer> presentCountries = new EnumMap<>(FeatureWindow.class);
        Map<FeatureWindow, List<String>> ids = new EnumMap<>(FeatureWindow.class);
        for (FeatureWindow w : FeatureWindow.values()) {
            List<String> inWindow = new ArrayList<>();
            Instant from = at.minus(w.length());
            int n = 0;
            BigDecimal sum = BigDecimal.ZERO.setScale(4);
            Set<String> m = new HashSet<>();
            Set<String> c = new HashSet<>();
            Set<String> present = new HashSet<>();
            for (CardActivityEntry e : activity.getEntries()) {
                Instant t = e.getOccurredAt();
                if (t.isAfter(from) && !t.isAfter(at)) {
                    n++;
                    inWindow.add(e.getTransactionId());
                    if (e.getAmount().getCurrency().equals(currency)) {
                        sum = sum.add(e.getAmount().getAmount());
                    }
                    m.add(e.getMerchantId());
                    c.add(e.getMerchantCountry());
                    if (PRESENT.contains(e.getChannel())) {
                        present.add(e.getMerchantCountry());
                    }
                }
            }
            count.put(w, n);
            spend.put(w, sum);
            merchants.put(w, m.size());
            countries.put(w, c.size());
            presentCountries.put(w, present.size());
            ids.put(w, inWindow);
        }
        return new CardFeatures(count, spend, merchants, countries, presentCountries, ids);
    }

    /** The activity with {@code request} added (once per transaction id) and entries past retention dropped. */
    public static CardActivity record(CardActivity activity, TransactionAuthorizationRequested request) {
        List<CardActivityEntry> entries = new ArrayList<>(activity.getEntries());
        boolean seen = entries.stream().anyMatch(e -> e.getTransactionId().equals(request.getTransactionId()));
        if (!seen) {
            entries.add(CardActivityEntry.newBuilder()
                    .setTransactionId(request.getTransactionId())
                    .setOccurredAt(request.getEnvelope().getOccurredAt())
                    .setAmount(request.getAmount())
                    .setMerchantId(request.getMerchant().getMerchantId())
                    .setMerchantCountry(request.getMerchant().getCountry())
                    .setChannel(request.getChannel().name())
                    .build());
            entries.sort(Comparator.comparing(CardActivityEntry::getOccurredAt));
        }
        Instant newest = entries.get(entries.size() - 1).getOccurredAt();
        Instant keepFrom = newest.minus(FeatureWindow.longest());
        entries.removeIf(e -> !e.getOccurredAt().isAfter(keepFrom) && !e.getTransactionId().equals(request.getTransactionId()));
        return CardActivity.newBuilder(activity).setEntries(entries).build();
    }

    private CardActivities() {
    }
}
