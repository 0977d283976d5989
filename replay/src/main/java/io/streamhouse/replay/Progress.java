package io.streamhouse.replay;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * How a rebuild's progress is shown: a bar per target redrawn in place with events/s and ETA on a terminal, a plain
 * line per target every few seconds otherwise (logs, pipes), nothing under {@code --json} (stdout is then the summary
 * alone). Safe to call from the threads of targets rebuilding side by side.
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

    /**
     * On a terminal: one line redrawn in place, with a bar per target still running (targets rebuild side by side); a
     * target's "rebuilt" line is printed above it once it is done.
     */
    final class Bar implements Progress {
        private final PrintStream out;
        private final java.util.Map<String, String> running = new java.util.LinkedHashMap<>();
        private int drawn;

        Bar(PrintStream out) {
            this.out = out;
        }

        @Override
        public synchronized void update(String target, long done, long total, long events, Duration elapsed) {
            running.putIfAbsent(target, "");
            int width = running.size() > 1 ? 10 : 30; // side by side, each bar shorter
            int filled = (int) (width * Math.min(1.0, done / (double) Math.max(1, total)));
            running.put(target, String.format(Locale.ROOT, "%s [%s%s] %3d%%  %,d events  %s  %s", target, "#".repeat(filled),
                    ".".repeat(width - filled), 100 * done / Math.max(1, total), events, rate(events, elapsed), eta(done, total, elapsed)));
            redraw();
        }

        @Override
        public synchronized void done(String target, long events, Duration took) {
            running.remove(target);
            clear();
            out.printf(Locale.ROOT, "%-9s rebuilt: %,d events in %.1f s (%s)%n", target, events, took.toMillis() / 1000.0, rate(events, took));
            redraw();
        }

        private void redraw() {
            clear();
            String line = String.join("  |  ", running.values());
            out.print(line);
            out.flush();
            drawn = line.length();
        }

        private void clear() {
            if (drawn > 0) {
                out.print("\r" + " ".repeat(drawn) + "\r");
                drawn = 0;
            }
        }
    }

    /** Not on a terminal: a line per target at most every 5 s, and one when it is rebuilt. */
    final class Lines implements Progress {
        private final PrintStream out;
        private final java.util.Map<String, Instant> last = new java.util.HashMap<>();

        Lines(PrintStream out) {
            this.out = out;
        }

        @Override
        public synchronized void update(String target, long done, long total, long events, Duration elapsed) {
            Instant now = Instant.now();
            if (Duration.between(last.getOrDefault(target, Instant.EPOCH), now).toMillis() < 5000 && done < total) {
                return;
            }
            last.put(target, now);
            out.printf(Locale.ROOT, "%s: %d%% of the cut, %,d events, %s, %s%n", target, 100 * done / Math.max(1, total), events,
                    rate(events, elapsed), eta(done, total, elapsed));
        }

        @Override
        public synchronized void done(String target, long events, Duration took) {
            out.printf(Locale.ROOT, "%s rebuilt: %,d events in %.1f s (%s)%n", target, events, took.toMillis() / 1000.0, rate(events, took));
        }
    }
}
