package io.streamhouse.detection.cep;

import io.streamhouse.domain.events.GreatCircle;
import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.state.CepFact;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Impossible travel: two consecutive card-present uses (card present or contactless, with a location) of one card
 * whose implied speed exceeds {@code maxKmh}. Online payments do not count: they say nothing about where the card is.
 * Anchor: the second use.
 *
 * <p>Kept per card: the card-present uses of the retention (24 h by default): id, time, location, merchant country.
 * On time only the last one is compared with the next; the others are there for a late use, which changes the pairs
 * on both sides of it.
 */
public final class ImpossibleTravelPattern implements SubjectPattern<TransactionAuthorizationRequested> {

    @Override
    public PatternSettings.Kind kind() {
        return PatternSettings.Kind.IMPOSSIBLE_TRAVEL;
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
        boolean present = tx.getLocation() != null
                && (tx.getChannel() == Channel.CARD_PRESENT || tx.getChannel() == Channel.CONTACTLESS);
        if (!present) {
            return Optional.empty();
        }
        return Optional.of(SubjectPattern.fact(tx.getEnvelope(), "use").setLocation(tx.getLocation())
                .setCountry(tx.getMerchant().getCountry()).build());
    }

    @Override
    public List<Finding> find(String card, List<CepFact> uses, PatternSettings settings, Instant timeReached) {
        double maxKmh = settings.impossibleTravel().maxKmh();
        List<Finding> found = new ArrayList<>();
        CepFact previous = null;
        for (CepFact use : uses) {
            if (previous != null) {
                long from = previous.getOccurredAtMs();
                long to = use.getOccurredAtMs();
                double kmh = GreatCircle.speedKmh(previous.getLocation(), from, use.getLocation(), to);
                if (kmh > maxKmh) {
                    found.add(new Finding(use.getEventId(), AlertType.IMPOSSIBLE_TRAVEL, SubjectKind.CARD,
                            card, List.of(previous.getEventId(), use.getEventId()), SubjectPattern.at(previous),
                            SubjectPattern.at(use),
                            Map.of("distanceKm", String.format(Locale.ROOT, "%.1f",
                                            GreatCircle.distanceKm(previous.getLocation(), use.getLocation())),
                                    "impliedKmh", Double.isInfinite(kmh) ? "infinite" : String.format(Locale.ROOT, "%.0f", kmh),
                                    "maxKmh", Double.toString(maxKmh),
                                    "fromCountry", previous.getCountry(),
                                    "toCountry", use.getCountry())));
                }
            }
            previous = use;
        }
        return found;
    }

    @Override
    public Duration retention(PatternSettings settings) {
        return settings.impossibleTravel().retention();
    }

    /** A pair is trusted when its first use is retained: every use between the two is then retained too. */
    @Override
    public Duration guard(PatternSettings settings) {
        return Duration.ZERO;
    }

    @Override
    public int version(PatternSettings settings) {
        return settings.impossibleTravel().version();
    }

    @Override
    public boolean enabled(PatternSettings settings) {
        return settings.impossibleTravel().enabled();
    }
}
