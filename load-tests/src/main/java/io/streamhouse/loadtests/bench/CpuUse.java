package io.streamhouse.loadtests.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Where a phase's CPU went: the CPU time of named processes (the stack's broker, ingest, api, and this benchmark
 * itself) and of the whole machine ({@code /proc/stat}, Linux), between two snapshots, per request and as cores busy.
 * On a machine where the load generator shares the cores with the stack, this says how much of the latency is waiting
 * for a core, and which process to make cheaper.
 */
final class CpuUse {
    record Snapshot(long nanoTime, Map<String, Duration> perProcess, Optional<long[]> machineTicks) {
    }

    private final Map<String, ProcessHandle> processes = new LinkedHashMap<>();

    /** @param pids by name (the benchmark itself is added as "bench") */
    CpuUse(Map<String, Long> pids) {
        pids.forEach((name, pid) -> processes.put(name, ProcessHandle.of(pid)
                .orElseThrow(() -> new IllegalArgumentException("no process " + pid + " (" + name + ")"))));
        processes.put("bench", ProcessHandle.current());
    }

    /** "name=pid" pairs, as given on the command line. */
    static Map<String, Long> parse(java.util.List<String> pairs) {
        Map<String, Long> pids = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--cpu takes name=pid, was " + pair);
            }
            pids.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
        }
        return pids;
    }

    boolean isEmpty() {
        return processes.size() == 1;
    }

    Snapshot snapshot() {
        Map<String, Duration> cpu = new LinkedHashMap<>();
        processes.forEach((name, p) -> cpu.put(name, p.info().totalCpuDuration().orElse(Duration.ZERO)));
        return new Snapshot(System.nanoTime(), cpu, machineTicks());
    }

    /** CPU per request of each process and the cores the machine was busy, between two snapshots. */
    static String between(Snapshot before, Snapshot after, long requests) {
        double seconds = (after.nanoTime() - before.nanoTime()) / 1e9;
        StringBuilder s = new StringBuilder();
        after.perProcess().forEach((name, total) -> {
            Duration used = total.minus(before.perProcess().getOrDefault(name, Duration.ZERO));
            s.append(String.format(Locale.ROOT, "%s %.2f ms/req (%.2f cores), ", name,
                    used.toNanos() / 1e6 / Math.max(1, requests), used.toNanos() / 1e9 / seconds));
        });
        if (before.machineTicks().isPresent() && after.machineTicks().isPresent()) {
            long[] b = before.machineTicks().get();
            long[] a = after.machineTicks().get();
            double busy = a[0] - b[0];
            double all = a[1] - b[1];
            s.append(String.format(Locale.ROOT, "machine busy %.2f of %d cores",
                    all == 0 ? 0 : busy / all * Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().availableProcessors()));
        } else if (s.length() > 2) {
            s.setLength(s.length() - 2);
        }
        return s.toString();
    }

    /** {busy, total} jiffies of all CPUs from /proc/stat's first line; empty where there is none. */
    private static Optional<long[]> machineTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length; i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
            return Optional.of(new long[]{total - idle, total});
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
