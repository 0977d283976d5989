package io.streamhouse.loadtests.bench;

import org.HdrHistogram.Histogram;

import java.util.Locale;

/** A thread-safe latency histogram in microseconds (1 µs to 60 s, 3 significant digits), printed in milliseconds. */
final class Latencies {
    private final Histogram histogram = new Histogram(60_000_000L, 3);

    synchronized void recordNanos(long nanos) {
        histogram.recordValue(Math.max(1, Math.min(nanos / 1_000, 60_000_000L)));
    }

    synchronized long count() {
        return histogram.getTotalCount();
    }

    synchronized double percentileMillis(double p) {
        return histogram.getValueAtPercentile(p) / 1_000.0;
    }

    synchronized double maxMillis() {
        return histogram.getMaxValue() / 1_000.0;
    }

    synchronized String summary() {
        return String.format(Locale.ROOT, "n=%d p50=%.1f ms p99=%.1f ms p99.9=%.1f ms max=%.1f ms", histogram.getTotalCount(),
                percentileMillis(50), percentileMillis(99), percentileMillis(99.9), maxMillis());
    }
}
