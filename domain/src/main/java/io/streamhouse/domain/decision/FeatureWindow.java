package io.streamhouse.domain.decision;

import java.time.Duration;

/** The look-back windows the per-card features are kept for, by event time. */
public enum FeatureWindow {
    ONE_MINUTE("1m", Duration.ofMinutes(1)),
    ONE_HOUR("1h", Duration.ofHours(1)),
    ONE_DAY("24h", Duration.ofHours(24));

    private final String label;
    private final Duration length;

    FeatureWindow(String label, Duration length) {
        this.label = label;
        this.length = length;
    }

    public String label() {
        return label;
    }

    public Duration length() {
        return length;
    }

    /** The longest window: how much history a card's state must keep. */
    public static Duration longest() {
        return ONE_DAY.length;
    }

    public static FeatureWindow parse(String label) {
        for (FeatureWindow w : values()) {
            if (w.label.equals(label)) {
                return w;
            }
        }
        throw new IllegalArgumentException("'" + label + "' is not a window; use 1m, 1h or 24h");
    }
}
