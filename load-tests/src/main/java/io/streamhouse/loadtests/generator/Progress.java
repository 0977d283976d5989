package io.streamhouse.loadtests.generator;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A progress line on stderr, redrawn in place ({@code \r}) at most five times a second: count, rate, ETA. Wall clock
 * is fine here: this is the edge, not the generation.
 */
public final class Progress {
    private static final long REDRAW_NANOS = 200_000_000L;
    private final PrintStream out;
    private final String label;
    private final long total;
    private final long began = System.nanoTime();
    private long lastDraw;

    public Progress(PrintStream out, String label, long total) {
        this.out = out;
        this.label = label;
        this.total = total;
    }

    public void update(long done) {
        long t = System.nanoTime();
        if (t - lastDraw >= REDRAW_NANOS) {
            lastDraw = t;
            out.print("\r" + line(done, t - began));
            out.flush();
        }
    }

    public void finish(long done) {
        out.print("\r" + line(done, System.nanoTime() - began) + System.lineSeparator());
        out.flush();
    }

    String line(long done, long elapsedNanos) {
        double seconds = Math.max(elapsedNanos / 1e9, 1e-3);
        double rate = done / seconds;
        int width = 24;
        int filled = total == 0 ? width : (int) Math.min(width, done * width / total);
        String eta = rate <= 0 || done >= total ? "0s" : formatSeconds((long) Math.ceil((total - done) / rate));
        return String.format(Locale.ROOT, "%s [%s%s] %,d/%,d  %,.0f/s  ETA %s   ", label, "#".repeat(filled),
                ".".repeat(width - filled), done, total, rate, eta);
    }

    static String formatSeconds(long s) {
        return s >= 3600 ? String.format(Locale.ROOT, "%dh%02dm", s / 3600, s / 60 % 60)
                : s >= 60 ? String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60) : s + "s";
    }
}
