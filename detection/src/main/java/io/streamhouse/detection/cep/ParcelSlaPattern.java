package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.state.CepFact;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Parcel SLA breach: the parcel's last OUT_FOR_DELIVERY scan, and no DELIVERED scan by {@code promisedBy + grace}.
 * This is a pattern about something that did not happen: the partial match (out for delivery) times out when event
 * time passes the deadline, and the breach is reported then ("never delivered" so far, the out-for-delivery scan as its
 * only event). A DELIVERED scan that arrives after the deadline revises it ("delivered late", both scans). Anchor: the
 * out-for-delivery scan.
 *
 * <p>A parcel can go out for delivery after its deadline (it was late before it left): that scan is the breach, alerted
 * when it is evaluated ("never delivered" so far), with the window from the deadline to that scan instead of from
 * the scan to the deadline; a late delivery revises it as above, same window.
 *
 * <p>Kept per parcel, for the retention (2 days by default): its out-for-delivery scans (with the promise) and
 * delivery scans; other scans are not kept. The pending time-out is an event-time timer at each kept
 * out-for-delivery scan's deadline; it is deleted when the scan leaves the state.
 */
public final class ParcelSlaPattern implements SubjectPattern<ParcelScanned> {
    static final String OUT_FOR_DELIVERY = "out-for-delivery";
    static final String DELIVERED = "delivered";

    @Override
    public PatternSettings.Kind kind() {
        return PatternSettings.Kind.PARCEL_SLA;
    }

    @Override
    public Envelope envelope(ParcelScanned event) {
        return event.getEnvelope();
    }

    @Override
    public String subject(ParcelScanned scan) {
        return scan.getParcelId();
    }

    @Override
    public Optional<CepFact> factOf(ParcelScanned scan) {
        if (scan.getStatus() == ParcelStatus.OUT_FOR_DELIVERY) {
            return Optional.of(SubjectPattern.fact(scan.getEnvelope(), OUT_FOR_DELIVERY)
                    .setDueAtMs(scan.getPromisedBy() == null ? null : scan.getPromisedBy().toEpochMilli()).build());
        }
        if (scan.getStatus() == ParcelStatus.DELIVERED) {
            return Optional.of(SubjectPattern.fact(scan.getEnvelope(), DELIVERED).build());
        }
        return Optional.empty();
    }

    @Override
    public List<Finding> find(String parcel, List<CepFact> scans, PatternSettings settings, Instant timeReached) {
        CepFact outForDelivery = null;
        CepFact delivered = null;
        for (CepFact s : scans) {
            if (OUT_FOR_DELIVERY.equals(s.getKind())) {
                outForDelivery = s;
                delivered = null;
            } else if (DELIVERED.equals(s.getKind()) && outForDelivery != null && delivered == null) {
                delivered = s;
            }
        }
        if (outForDelivery == null || outForDelivery.getDueAtMs() == null) {
            return List.of();
        }
        Instant promisedBy = Instant.ofEpochMilli(outForDelivery.getDueAtMs());
        Instant deadline = promisedBy.plus(settings.parcelSla().grace());
        List<String> ids;
        String outcome;
        if (delivered != null) {
            if (!SubjectPattern.at(delivered).isAfter(deadline)) {
                return List.of();
            }
            ids = List.of(outForDelivery.getEventId(), delivered.getEventId());
            outcome = "delivered-late";
        } else {
            // The out-for-delivery scan itself shows that event time reached its own time, even at end of input.
            boolean passed = SubjectPattern.at(outForDelivery).isAfter(deadline)
                    || (timeReached != null && timeReached.isAfter(deadline));
            if (!passed) {
                return List.of();
            }
            ids = List.of(outForDelivery.getEventId());
            outcome = "never-delivered";
        }
        // Out for delivery before the deadline: from that scan to the deadline. Out for delivery after it (the parcel
        // was late before it left): from the deadline to that scan, the first event showing the breach. Both ends are
        // event times, so the alert id stays the same on replay.
        Instant sentOut = SubjectPattern.at(outForDelivery);
        Instant windowStart = sentOut.isAfter(deadline) ? deadline : sentOut;
        Instant windowEnd = sentOut.isAfter(deadline) ? sentOut : deadline;
        return List.of(new Finding(outForDelivery.getEventId(), AlertType.PARCEL_SLA_BREACH,
                SubjectKind.PARCEL, parcel, ids, windowStart, windowEnd,
                Map.of("outcome", outcome, "promisedBy", promisedBy.toString(),
                        "grace", settings.parcelSla().grace().toString())));
    }

    /** Out for delivery: evaluate once event time passes the deadline, even if the parcel is never scanned again. */
    @Override
    public Optional<Instant> deadline(CepFact fact, PatternSettings settings) {
        if (!OUT_FOR_DELIVERY.equals(fact.getKind()) || fact.getDueAtMs() == null) {
            return Optional.empty();
        }
        return Optional.of(Instant.ofEpochMilli(fact.getDueAtMs()).plus(settings.parcelSla().grace()).plusMillis(1));
    }

    @Override
    public Duration retention(PatternSettings settings) {
        return settings.parcelSla().retention();
    }

    @Override
    public Duration guard(PatternSettings settings) {
        return Duration.ZERO;
    }

    @Override
    public int version(PatternSettings settings) {
        return settings.parcelSla().version();
    }

    @Override
    public boolean enabled(PatternSettings settings) {
        return settings.parcelSla().enabled();
    }
}
