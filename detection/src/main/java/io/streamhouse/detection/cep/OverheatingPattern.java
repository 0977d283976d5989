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
import java.util.Map;

/**
 * Engine overheating: a run of consecutive readings of one vehicle, each above {@code thresholdC} and hotter than the
 * one before, all within {@code window} of the first, at least {@code minReadings} long. It is reported as soon as the
 * run is long enough and revised while it grows (same anchor: the run's first reading), so the final alert holds the
 * whole run.
 */
public final class OverheatingPattern implements SubjectPattern<VehicleTelemetry> {

    @Override
    public PatternSettings.Kind kind() {
        return PatternSettings.Kind.ENGINE_OVERHEATING;
    }

    @Override
    public Envelope envelope(VehicleTelemetry event) {
        return event.getEnvelope();
    }

    @Override
    public List<Finding> find(String vehicle, List<VehicleTelemetry> readings, PatternSettings settings,
                              Instant timeReached) {
        PatternSettings.Overheating p = settings.overheating();
        List<Finding> found = new ArrayList<>();
        List<VehicleTelemetry> run = new ArrayList<>();
        double last = Double.NEGATIVE_INFINITY;
        for (VehicleTelemetry r : readings) {
            double coolant = r.getCoolantTempC();
            boolean continues = coolant > p.thresholdC() && coolant > last && !run.isEmpty()
                    && !r.getEnvelope().getOccurredAt().isAfter(run.get(0).getEnvelope().getOccurredAt().plus(p.window()));
            if (!continues) {
                emit(vehicle, run, p, found);
                run.clear();
                if (coolant > p.thresholdC()) {
                    run.add(r);
                }
            } else {
                run.add(r);
            }
            last = coolant;
        }
        emit(vehicle, run, p, found);
        return found;
    }

    private static void emit(String vehicle, List<VehicleTelemetry> run, PatternSettings.Overheating p, List<Finding> found) {
        if (run.size() < p.minReadings()) {
            return;
        }
        VehicleTelemetry first = run.get(0);
        VehicleTelemetry lastReading = run.get(run.size() - 1);
        found.add(new Finding(first.getEnvelope().getEventId(), AlertType.ENGINE_OVERHEATING, SubjectKind.VEHICLE,
                vehicle, run.stream().map(r -> r.getEnvelope().getEventId()).toList(),
                first.getEnvelope().getOccurredAt(), lastReading.getEnvelope().getOccurredAt(),
                Map.of("readings", Integer.toString(run.size()), "maxCoolantC", Double.toString(lastReading.getCoolantTempC()),
                        "thresholdC", Double.toString(p.thresholdC()), "minReadings", Integer.toString(p.minReadings()),
                        "window", p.window().toString())));
    }

    @Override
    public Duration retention(PatternSettings settings) {
        return settings.overheating().window().multipliedBy(2);
    }

    @Override
    public Duration guard(PatternSettings settings) {
        return settings.overheating().window();
    }

    @Override
    public int version(PatternSettings settings) {
        return settings.overheating().version();
    }

    @Override
    public boolean enabled(PatternSettings settings) {
        return settings.overheating().enabled();
    }
}
