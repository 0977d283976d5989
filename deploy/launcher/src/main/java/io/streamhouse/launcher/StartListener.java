package io.streamhouse.launcher;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What {@code up} prints while it starts: each step's announcement, its lines once ready or the line saying it is not
 * started, and at the end where the start-up time went, step by step.
 */
final class StartListener {
    private final PrintStream out;
    private final List<String> timings = new ArrayList<>();

    StartListener(PrintStream out) {
        this.out = out;
    }

    void announced(String line) {
        out.println(line);
    }

    void started(StartStep step, Duration took) {
        timings.add(String.format("%s %.1f s", step.name(), took.toMillis() / 1000.0));
    }

    void skipped(String line) {
        out.println(line);
    }

    /** One line: each started step and how long it took, in start order. */
    String timingLine() {
        return "  start-up by component: " + timings.stream().collect(Collectors.joining(", "));
    }

    /** Runs the steps in order; the first that throws ends the start. */
    void run(List<StartStep> steps, StartContext context) throws Exception {
        for (StartStep step : steps) {
            var skipped = step.skip(context);
            if (skipped.isPresent()) {
                skipped(skipped.get());
                continue;
            }
            announced(step.announce(context));
            long t0 = System.nanoTime();
            step.start(context, out::println);
            started(step, Duration.ofNanos(System.nanoTime() - t0));
        }
    }
}
