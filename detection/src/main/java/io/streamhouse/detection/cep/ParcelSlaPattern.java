package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.SubjectKind;

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
 */
public final class ParcelSlaPattern implements SubjectPattern<ParcelScanned> {

    @Override
    public PatternSettings.Kind kind() {
        return PatternSettings.Kind.PARCEL_SLA;
    }

    @Override
    public Envelope envelope(ParcelScanned event) {
        return event.getEnvelope();
    }

    @Override
    public List<Finding> find(String parcel, List<ParcelScanned> scans, PatternSettings settings, Instant timeReached) {
        ParcelScanned outForDelivery = null;
        ParcelScanned delivered = null;
        for (ParcelScanned s : scans) {
            if (s.getStatus() == ParcelStatus.OUT_FOR_DELIVERY) {
                outForDelivery = s;
                delivered = null;
            } else if (s.getStatus() == ParcelStatus.DELIVERED && outForDelivery != null && delivered == null) {
                delivered = s;
            }
        }
        if (outForDelivery == null || outForDelivery.getPromisedBy() == null) {
            return List.of();
        }
        Instant promisedBy = outForDelivery.getPromisedBy();
        Instant deadline = promisedBy.plus(settings.parcelSla().grace());
        List<String> ids;
        String outcome;
        if (delivered != null) {
            if (!delivered.getEnvelope().getOccurredAt().isAfter(deadline)) {
                return List.of();
            }
            ids = List.of(outForDelivery.getEnvelope().getEventId(), delivered.getEnvelope().getEventId());
            outcome = "delivered-late";
        } else {
            if (timeReached == null || !timeReached.isAfter(deadline)) {
                return List.of();
            }
            ids = List.of(outForDelivery.getEnvelope().getEventId());
            outcome = "never-delivered";
        }
        return List.of(new Finding(outForDelivery.getEnvelope().getEventId(), AlertType.PARCEL_SLA_BREACH,
                SubjectKind.PARCEL, parcel, ids, outForDelivery.getEnvelope().getOccurredAt(), deadline,
                Map.of("outcome", outcome, "promisedBy", promisedBy.toString(),
                        "grace", settings.parcelSla().grace().toString())));
    }

    /** Out for delivery: evaluate once event time passes the deadline, even if the parcel is never scanned again. */
    @Override
    public Optional<Instant> deadline(ParcelScanned event, PatternSettings settings) {
        if (event.getStatus() != ParcelStatus.OUT_FOR_DELIVERY || event.getPromisedBy() == null) {
            return Optional.empty();
        }
        return Optional.of(event.getPromisedBy().plus(settings.parcelSla().grace()).plusMillis(1));
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
