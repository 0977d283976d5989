package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.state.CepFact;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Maintenance due: between two consecutive readings of a vehicle the odometer passed a multiple of
 * {@code intervalKm} (a service interval). One occurrence per interval passed. Anchor: the reading past the mark.
 * The generator plants none of these, so they are not part of its ground truth.
 *
 * <p>Kept per vehicle, for an hour: every reading's time and odometer. An occurrence is two consecutive readings; the
 * hour of readings is what a late reading, which may fall between two others, is reconciled against.
 */
public final class MaintenanceDuePattern implements SubjectPattern<VehicleTelemetry> {

    @Override
    public PatternSettings.Kind kind() {
        return PatternSettings.Kind.MAINTENANCE_DUE;
    }

    @Override
    public Envelope envelope(VehicleTelemetry event) {
        return event.getEnvelope();
    }

    @Override
    public String subject(VehicleTelemetry r) {
        return r.getVehicleId();
    }

    @Override
    public Optional<CepFact> factOf(VehicleTelemetry r) {
        return Optional.of(SubjectPattern.fact(r.getEnvelope(), "reading").setReading(r.getOdometerKm()).build());
    }

    @Override
    public List<Finding> find(String vehicle, List<CepFact> readings, PatternSettings settings, Instant timeReached) {
        double interval = settings.maintenanceDue().intervalKm();
        List<Finding> found = new ArrayList<>();
        CepFact previous = null;
        for (CepFact r : readings) {
            if (previous != null) {
                long before = (long) Math.floor(previous.getReading() / interval);
                long now = (long) Math.floor(r.getReading() / interval);
                if (now > before) {
                    found.add(new Finding(r.getEventId(), AlertType.MAINTENANCE_DUE, SubjectKind.VEHICLE,
                            vehicle, List.of(previous.getEventId(), r.getEventId()),
                            SubjectPattern.at(previous), SubjectPattern.at(r),
                            Map.of("odometerKm", String.format(Locale.ROOT, "%.1f", r.getReading()),
                                    "serviceMarkKm", String.format(Locale.ROOT, "%.0f", now * interval),
                                    "intervalKm", Double.toString(interval))));
                }
            }
            previous = r;
        }
        return found;
    }

    @Override
    public Duration retention(PatternSettings settings) {
        return Duration.ofHours(1);
    }

    @Override
    public Duration guard(PatternSettings settings) {
        return Duration.ZERO;
    }

    @Override
    public int version(PatternSettings settings) {
        return settings.maintenanceDue().version();
    }

    @Override
    public boolean enabled(PatternSettings settings) {
        return settings.maintenanceDue().enabled();
    }
}
