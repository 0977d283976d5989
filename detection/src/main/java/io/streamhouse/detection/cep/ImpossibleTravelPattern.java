package io.streamhouse.detection.cep;

import io.streamhouse.domain.events.GreatCircle;
import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Impossible travel: two consecutive card-present uses (card present or contactless, with a location) of one card
 * whose implied speed exceeds {@code maxKmh}. Online payments do not count: they say nothing about where the card is.
 * Anchor: the second use.
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
    public List<Finding> find(String card, List<TransactionAuthorizationRequested> txs, PatternSettings settings,
                              Instant timeReached) {
        double maxKmh = settings.impossibleTravel().maxKmh();
        List<Finding> found = new ArrayList<>();
        TransactionAuthorizationRequested previous = null;
        for (TransactionAuthorizationRequested tx : txs) {
            boolean present = tx.getLocation() != null
                    && (tx.getChannel() == Channel.CARD_PRESENT || tx.getChannel() == Channel.CONTACTLESS);
            if (!present) {
                continue;
            }
            if (previous != null) {
                Instant from = previous.getEnvelope().getOccurredAt();
                Instant to = tx.getEnvelope().getOccurredAt();
                double kmh = GreatCircle.speedKmh(previous.getLocation(), from.toEpochMilli(), tx.getLocation(), to.toEpochMilli());
                if (kmh > maxKmh) {
                    found.add(new Finding(tx.getEnvelope().getEventId(), AlertType.IMPOSSIBLE_TRAVEL, SubjectKind.CARD,
                            card, List.of(previous.getEnvelope().getEventId(), tx.getEnvelope().getEventId()), from, to,
                            Map.of("distanceKm", String.format(Locale.ROOT, "%.1f",
                                            GreatCircle.distanceKm(previous.getLocation(), tx.getLocation())),
                                    "impliedKmh", Double.isInfinite(kmh) ? "infinite" : String.format(Locale.ROOT, "%.0f", kmh),
                                    "maxKmh", Double.toString(maxKmh),
                                    "fromCountry", previous.getMerchant().getCountry(),
                                    "toCountry", tx.getMerchant().getCountry())));
                }
            }
            previous = tx;
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
