package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.state.CepThresholds;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * One pattern's thresholds as the stamping step writes them onto each fact ({@link CepThresholds}), and back as the
 * {@link PatternSettings} the pure pattern functions take: the built-in defaults with that one pattern replaced.
 */
final class Thresholds {

    static CepThresholds of(PatternSettings s, PatternSettings.Kind kind) {
        CepThresholds.Builder t = CepThresholds.newBuilder();
        return switch (kind) {
            case CARD_TESTING -> {
                var p = s.cardTesting();
                yield t.setVersion(p.version()).setEnabled(p.enabled()).setSmallMax(p.smallMax().toPlainString())
                        .setLargeMin(p.largeMin().toPlainString()).setMinSmall(p.minSmall())
                        .setWindowMs(p.window().toMillis()).build();
            }
            case IMPOSSIBLE_TRAVEL -> {
                var p = s.impossibleTravel();
                yield t.setVersion(p.version()).setEnabled(p.enabled()).setMaxKmh(p.maxKmh())
                        .setRetentionMs(p.retention().toMillis()).build();
            }
            case ACCOUNT_TAKEOVER -> {
                var p = s.accountTakeover();
                yield t.setVersion(p.version()).setEnabled(p.enabled()).setHighValue(p.highValue().toPlainString())
                        .setWindowMs(p.window().toMillis()).build();
            }
            case PARCEL_SLA -> {
                var p = s.parcelSla();
                yield t.setVersion(p.version()).setEnabled(p.enabled()).setGraceMs(p.grace().toMillis())
                        .setRetentionMs(p.retention().toMillis()).build();
            }
            case ENGINE_OVERHEATING -> {
                var p = s.overheating();
                yield t.setVersion(p.version()).setEnabled(p.enabled()).setThresholdC(p.thresholdC())
                        .setMinReadings(p.minReadings()).setWindowMs(p.window().toMillis()).build();
            }
            case MAINTENANCE_DUE -> {
                var p = s.maintenanceDue();
                yield t.setVersion(p.version()).setEnabled(p.enabled()).setIntervalKm(p.intervalKm()).build();
            }
        };
    }

    /** The defaults with {@code kind} set to the stamped thresholds. */
    static PatternSettings settings(CepThresholds t, PatternSettings.Kind kind) {
        PatternSettings d = PatternSettings.defaults();
        int v = t.getVersion();
        boolean on = t.getEnabled();
        return switch (kind) {
            case CARD_TESTING -> new PatternSettings(new PatternSettings.CardTesting(v, on, new BigDecimal(t.getSmallMax()),
                    new BigDecimal(t.getLargeMin()), t.getMinSmall(), Duration.ofMillis(t.getWindowMs())),
                    d.impossibleTravel(), d.accountTakeover(), d.parcelSla(), d.overheating(), d.maintenanceDue());
            case IMPOSSIBLE_TRAVEL -> new PatternSettings(d.cardTesting(), new PatternSettings.ImpossibleTravel(v, on,
                    t.getMaxKmh(), Duration.ofMillis(t.getRetentionMs())), d.accountTakeover(), d.parcelSla(),
                    d.overheating(), d.maintenanceDue());
            case ACCOUNT_TAKEOVER -> new PatternSettings(d.cardTesting(), d.impossibleTravel(),
                    new PatternSettings.AccountTakeover(v, on, new BigDecimal(t.getHighValue()),
                            Duration.ofMillis(t.getWindowMs())), d.parcelSla(), d.overheating(), d.maintenanceDue());
            case PARCEL_SLA -> new PatternSettings(d.cardTesting(), d.impossibleTravel(), d.accountTakeover(),
                    new PatternSettings.ParcelSla(v, on, Duration.ofMillis(t.getGraceMs()),
                            Duration.ofMillis(t.getRetentionMs())), d.overheating(), d.maintenanceDue());
            case ENGINE_OVERHEATING -> new PatternSettings(d.cardTesting(), d.impossibleTravel(), d.accountTakeover(),
                    d.parcelSla(), new PatternSettings.Overheating(v, on, t.getThresholdC(), t.getMinReadings(),
                    Duration.ofMillis(t.getWindowMs())), d.maintenanceDue());
            case MAINTENANCE_DUE -> new PatternSettings(d.cardTesting(), d.impossibleTravel(), d.accountTakeover(),
                    d.parcelSla(), d.overheating(), new PatternSettings.MaintenanceDue(v, on, t.getIntervalKm()));
        };
    }

    private Thresholds() {
    }
}
