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
import java.util.Map;
import java.util.Optional;

/**
 * Engine overheating: a run of consecutive readings of one vehicle, each above {@code thresholdC} and hotter than the
 * one before, all within {@code window} of the first, at least {@code minReadings} long. It is reported as soon as the
 * run is long enough and revised while it grows (the revision shares the run's readings), so the final alert holds the
 * whole run; a late reading that breaks the run (106, 108, 109, then 107 between) withdraws it.
 *
 * <p>Kept per vehicle, for {@code 2 × window}: every reading's time and coolant temperature (a cool or falling reading
 * ends a run, so it matters too).
 *
 * <p>A hot rising run longer than the window is split where the window ends and the next run starts there. An
 * evaluation of the retained history (the reconciliation's, after a late reading) starts from the oldest retained
 * reading and may split a run whose beginning was pruned differently — the guard (one window) keeps most such
 * fragments out, not all.
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
    public String subject(VehicleTelemetry r) {
        return r.getVehicleId();
    }

    @Override
    public Optional<CepFact> factOf(VehicleTelemetry r) {
        return Optional.of(SubjectPattern.fact(r.getEnvelope(), "reading").setReading(r.getCoolantTempC()).build());
    }

    @Override
    public List<Finding> find(String vehicle, List<CepFact> readings, PatternSettings settings, Instant timeReached) {
        List<Finding> found = new ArrayList<>();
        scan(vehicle, readings, settings.overheating(), found);
        return found;
    }

    /**
     * Splits the readings into runs, adding each run long enough to {@code found}. A run begins at a hot reading
     * whatever came before it, so scanning from a run's first reading finds that run again.
     */
    private static void scan(String vehicle, List<CepFact> readings, PatternSettings.Overheating p, List<Finding> found) {
        long window = p.window().toMillis();
        int runStart = -1;
        double last = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < readings.size(); i++) {
            CepFact r = readings.get(i);
            double coolant = r.getReading();
            boolean continues = runStart >= 0 && coolant > p.thresholdC() && coolant > last
                    && r.getOccurredAtMs() <= readings.get(runStart).getOccurredAtMs() + window;
            if (!continues) {
                if (runStart >= 0) {
                    emit(vehicle, readings.subList(runStart, i), p, found);
                }
                runStart = coolant > p.thresholdC() ? i : -1;
            }
            last = coolant;
        }
        if (runStart >= 0) {
            emit(vehicle, readings.subList(runStart, readings.size()), p, found);
        }
    }

    private static void emit(String vehicle, List<CepFact> run, PatternSettings.Overheating p, List<Finding> found) {
        if (run.size() < p.minReadings()) {
            return;
        }
        CepFact first = run.get(0);
        CepFact lastReading = run.get(run.size() - 1);
        found.add(new Finding(first.getEventId(), AlertType.ENGINE_OVERHEATING, SubjectKind.VEHICLE,
                vehicle, run.stream().map(CepFact::getEventId).toList(),
                SubjectPattern.at(first), SubjectPattern.at(lastReading),
                Map.of("readings", Integer.toString(run.size()), "maxCoolantC", Double.toString(lastReading.getReading()),
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
