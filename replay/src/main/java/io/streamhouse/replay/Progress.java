package io.streamhouse.replay;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * How a rebuild's progress is shown: a bar redrawn in place with events/s and ETA on a terminal, a plain line every
 * few seconds otherwise (logs, pipes), nothing under {@code --json} (stdout is then the summary alone).
 */
interface Progress {
    /** @param done offsets of the cut reached so far of {@code total}; events: records applied so far */
    void update(String target, long done, long total, long events, Duration elapsed);

    void done(String target, long events, Duration took);

    static Progress none() {
        return new Progress() {
            @Override
            public void update(String target, long done, long total, long events, Duration elapsed) {
            }

            @Override
            public void done(String target, long events, Duration took) {
            }
        };
    }

    static Progress to(PrintStream out, boolean terminal) {
        return terminal ? new Bar(out) : new Lines(out);
    }

    static String rate(long events, Duration elapsed) {
        double seconds = Math.max(0.001, elapsed.toMillis() / 1000.0);
        return String.format(Locale.ROOT, "%,.0f events/s", events / seconds);
    }

    static String eta(long done, long total, Duration elapsed) {
        if (done <= 0) {
            return "ETA --";
        }
        long millis = (long) (elapsed.toMillis() * (double) (total - done) / done);
        return String.format(Locale.ROOT, "ETA %ds", Math.round(millis / 1000.0));
    }

    final class Bar implements Progress {
        private final PrintStream out;

        Bar(PrintStream out) {
            this.out = out;
        }

        @Override
        public void update(String target, long done, long total, long events, Duration elapsed) {
            int width = 30, filled = (int) (width * Math.min(1.0, done / (double) Math.max(1, total)));
            out.printf(Locale.ROOT, "\r%-9s [%s%s] %3d%%  %,d events  %s  %s   ", target, "#".repeat(filled), ".".repeat(width - filled),
                    100 * done / Math.max(1, total), events, rate(events, elapsed), eta(done, total, elapsed));
            out.flush();
        }

        @Override
        public void done(String target, long events, Duration took) {
            out.printf(Locale.ROOT, "\r%-9s rebuilt: %,d events in %.1f s (%s)%s%n", target, events, took.toMillis() / 1000.0,
                    rate(events, took), " ".repeat(30));
        }
    }

    final class Lines implements Progress {
        private final PrintStream out;
        private Instant last = Instant.EPOCH;

        Lines(PrintStream out) {
            this.out = out;
        }

        @Override
        public void update(String target, long done, long total, long events, Duration elapsed) {
            Instant now = Instant.now();
            if (Duration.between(last, now).toMillis() < 5000 && done < total) {
                return;
            }
            last = now;
            out.printf(Locale.ROOT, "%s: %d%% of the cut, %,d events, %s, %s%n", target, 100 * done / Math.max(1, total), events,
                    rate(events, elapsed), eta(done, total, elapsed));
        }

        @Override
        public void done(String target, long events, Duration took) {
            out.printf(Locale.ROOT, "%s rebuilt: %,d events in %.1f s (%s)%n", target, events, took.toMillis() / 1000.0, rate(events, took));
        }
    }
}
