package io.streamhouse.launcher;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

/**
 * Runs the start steps and prints what {@code up} says while it starts: each step's announcement, its lines once ready
 * or the line saying it is not started, and at the end where the start-up time went, step by step.
 *
 * <p>A step starts as soon as the steps it {@linkplain StartStep#needs() needs} are ready, on a thread of its own, so
 * steps that need nothing of each other start side by side. Lines are printed whole, in the order they happen. The
 * first step that fails ends the start: {@link #run} throws its exception at once, and no step that was not yet
 * started starts after that (one already running is left to the caller's close of the stack).
 */
final class StartListener {
    private final PrintStream out;
    /** Each started step: when it began and ended, in seconds from the start of {@link #run}. */
    private final Map<String, double[]> timings = new LinkedHashMap<>();

    StartListener(PrintStream out) {
        this.out = out;
    }

    private void print(String line) {
        synchronized (out) {
            out.println(line);
        }
    }

    /**
     * One line: each started step, how long it took, and from when to when (seconds since the start began), in the
     * order they started.
     */
    String timingLine() {
        synchronized (timings) {
            return "  start-up by component: " + timings.entrySet().stream()
                    .sorted(Comparator.comparingDouble(e -> e.getValue()[0]))
                    .map(e -> String.format("%s %.1f s (%.1f–%.1f)", e.getKey(), e.getValue()[1] - e.getValue()[0],
                            e.getValue()[0], e.getValue()[1]))
                    .collect(Collectors.joining(", "));
        }
    }

    /** Runs the steps, each once its needs are ready; returns when all are ready or skipped, throws the first failure. */
    void run(List<StartStep> steps, StartContext context) throws Exception {
        Set<String> names = new HashSet<>(), listed = new HashSet<>();
        steps.forEach(s -> names.add(s.name()));
        for (StartStep step : steps) {
            for (String need : step.needs()) {
                if (names.contains(need) && !listed.contains(need)) {
                    throw new IllegalArgumentException("step " + step.name() + " needs " + need + ", which is not listed before it");
                }
            }
            listed.add(step.name());
        }
        long t0 = System.nanoTime();
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "streamhouse-start");
            t.setDaemon(true);
            return t;
        });
        CompletableFuture<Void> failed = new CompletableFuture<>();
        Map<String, CompletableFuture<Void>> ready = new HashMap<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        try {
            for (StartStep step : steps) {
                CompletableFuture<?>[] needs = step.needs().stream().map(ready::get).filter(f -> f != null)
                        .toArray(CompletableFuture[]::new);
                CompletableFuture<Void> done = CompletableFuture.allOf(needs).thenRunAsync(() -> {
                    if (failed.isDone()) {
                        throw new CompletionException(new IllegalStateException("the start was ended by a failed step"));
                    }
                    start(step, context, t0);
                }, threads);
                done.whenComplete((ignored, e) -> {
                    if (e != null) {
                        failed.completeExceptionally(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                    }
                });
                ready.put(step.name(), done);
                all.add(done);
            }
            CompletableFuture.anyOf(CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)), failed).exceptionally(e -> null).join();
            // The steps' own futures too, not only `failed`: when the last step to end fails, every step has ended
            // before its callback may have completed `failed`.
            Optional<CompletableFuture<Void>> failure = failed.isCompletedExceptionally() ? Optional.of(failed)
                    : all.stream().filter(CompletableFuture::isCompletedExceptionally).findFirst();
            if (failure.isPresent()) {
                try {
                    failure.get().join();
                } catch (CompletionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof Exception exception) {
                        throw exception;
                    }
                    throw (Error) cause;
                }
            }
        } finally {
            threads.shutdown();
        }
    }

    private void start(StartStep step, StartContext context, long t0) {
        try {
            var skipped = step.skip(context);
            if (skipped.isPresent()) {
                print(skipped.get());
                return;
            }
            print(step.announce(context));
            double began = (System.nanoTime() - t0) / 1e9;
            step.start(context, this::print);
            double ended = (System.nanoTime() - t0) / 1e9;
            synchronized (timings) {
                timings.put(step.name(), new double[]{began, ended});
            }
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }
}
