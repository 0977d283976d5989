package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.VehicleTelemetry;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Maintenance due: between two consecutive readings of a vehicle the odometer passed a multiple of
 * {@code intervalKm} (a service interval). One occurrence per interval passed. Anchor: the reading past the mark.
 * The generator plants none of these, so they are not part of its ground truth.
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
    public List<Finding> find(String vehicle, List<VehicleTelemetry> readings, PatternSettings settings,
                              Instant timeReached) {
        double interval = settings.maintenanceDue().intervalKm();
        List<Finding> found = new ArrayList<>();
        VehicleTelemetry previous = null;
        for (VehicleTelemetry r : readings) {
            if (previous != null) {
                long before = (long) Math.floor(previous.getOdometerKm() / interval);
                long now = (long) Math.floor(r.getOdometerKm() / interval);
                if (now > before) {
                    found.add(new Finding(r.getEnvelope().getEventId(), AlertType.MAINTENANCE_DUE, SubjectKind.VEHICLE,
                            vehicle, List.of(previous.getEnvelope().getEventId(), r.getEnvelope().getEventId()),
                            previous.getEnvelope().getOccurredAt(), r.getEnvelope().getOccurredAt(),
                            Map.of("odometerKm", String.format(Locale.ROOT, "%.1f", r.getOdometerKm()),
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
