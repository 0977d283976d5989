package io.streamhouse.loadtests.generator;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;

/**
 * Sends a generation's events of the chosen kinds to a sink, in delivery order. Bounded twice: by the events the
 * generation holds and by an overall deadline, after which it stops and reports how far it got.
 */
public final class SinkRun {

    public record Result(int sent, int skipped, Duration elapsed) {
    }

    public static Result send(Generation g, Sink sink, Set<EventKind> kinds, Duration deadline, Progress progress)
            throws IOException {
        sink.requireSupports(kinds);
        long began = System.nanoTime();
        long until = began + deadline.toNanos();
        int sent = 0;
        int skipped = 0;
        for (GeneratedEvent e : g.events()) {
            if (!kinds.contains(e.kind())) {
                skipped++;
                continue;
            }
            if (System.nanoTime() > until) {
                throw new IOException("deadline of " + deadline + " passed after " + sent + " events sent to "
                        + sink.describe());
            }
            sink.send(e);
            sent++;
            if (progress != null) {
                progress.update(sent);
            }
        }
        sink.flush(until);
        if (progress != null) {
            progress.finish(sent);
        }
        return new Result(sent, skipped, Duration.ofNanos(System.nanoTime() - began));
    }

    private SinkRun() {
    }
}
