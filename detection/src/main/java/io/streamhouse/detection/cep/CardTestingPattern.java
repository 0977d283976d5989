package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.state.CepFact;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Card testing: at least {@code minSmall} authorizations of at most {@code smallMax}, then one of at least
 * {@code largeMin}, on one card, the smalls within {@code window} before the large one. The smalls counted are those
 * since the card's previous occurrence, so one burst is reported once. Anchor: the large authorization.
 *
 * <p>Kept per card: the small and large authorizations of the last {@code 2 × window} (id, time, amount); payments
 * in between the two thresholds can take part in nothing and are not kept.
 */
public final class CardTestingPattern implements SubjectPattern<TransactionAuthorizationRequested> {

    @Override
    public PatternSettings.Kind kind() {
        return PatternSettings.Kind.CARD_TESTING;
    }

    @Override
    public Envelope envelope(TransactionAuthorizationRequested event) {
        return event.getEnvelope();
    }

    @Override
    public String subject(TransactionAuthorizationRequested tx) {
        return tx.getCardToken();
    }

    @Override
    public Optional<CepFact> factOf(TransactionAuthorizationRequested tx) {
        return Optional.of(SubjectPattern.fact(tx.getEnvelope(), "payment").setMoney(tx.getAmount()).build());
    }

    /** Payments between the two thresholds take part in nothing. */
    @Override
    public boolean keeps(CepFact payment, PatternSettings settings) {
        PatternSettings.CardTesting p = settings.cardTesting();
        var amount = payment.getMoney().getAmount();
        return amount.compareTo(p.smallMax()) <= 0 || amount.compareTo(p.largeMin()) >= 0;
    }

    @Override
    public List<Finding> find(String card, List<CepFact> txs, PatternSettings settings, Instant timeReached) {
        PatternSettings.CardTesting p = settings.cardTesting();
        List<Finding> found = new ArrayList<>();
        Deque<CepFact> smalls = new ArrayDeque<>();
        for (CepFact tx : txs) {
            var amount = tx.getMoney().getAmount();
            if (amount.compareTo(p.smallMax()) <= 0) {
                smalls.addLast(tx);
            } else if (amount.compareTo(p.largeMin()) >= 0) {
                long from = tx.getOccurredAtMs() - p.window().toMillis();
                while (!smalls.isEmpty() && smalls.peekFirst().getOccurredAtMs() < from) {
                    smalls.removeFirst();
                }
                if (smalls.size() >= p.minSmall()) {
                    List<String> ids = new ArrayList<>();
                    smalls.forEach(s -> ids.add(s.getEventId()));
                    ids.add(tx.getEventId());
                    found.add(new Finding(tx.getEventId(), AlertType.CARD_TESTING, SubjectKind.CARD, card,
                            ids, SubjectPattern.at(smalls.peekFirst()), SubjectPattern.at(tx),
                            Map.of("smallCount", Integer.toString(smalls.size()),
                                    "largeAmount", amount.stripTrailingZeros().toPlainString(),
                                    "smallMax", p.smallMax().toPlainString(), "largeMin", p.largeMin().toPlainString(),
                                    "minSmall", Integer.toString(p.minSmall()), "window", p.window().toString())));
                    smalls.clear();
                }
            }
        }
        return found;
    }

    @Override
    public Duration retention(PatternSettings settings) {
        return settings.cardTesting().window().multipliedBy(2);
    }

    @Override
    public Duration guard(PatternSettings settings) {
        return settings.cardTesting().window();
    }

    @Override
    public int version(PatternSettings settings) {
        return settings.cardTesting().version();
    }

    @Override
    public boolean enabled(PatternSettings settings) {
        return settings.cardTesting().enabled();
    }
}
