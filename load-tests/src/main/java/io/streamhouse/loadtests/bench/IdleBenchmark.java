package io.streamhouse.loadtests.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * The CPU a running stack uses with no traffic: user plus system time of the launcher and of every process under it
 * (the components {@code status.json} names, and their own children), read from {@code /proc} (Linux) at the start and
 * the end of a window, as cores busy. With {@code --threads}, the busiest threads of each process, by name (digits
 * folded), so the figure comes with where it goes. It only reads: nothing is sent to the stack.
 */
@Command(name = "idle-benchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Cores a running stack keeps busy with no traffic, per process, from /proc.")
public final class IdleBenchmark implements Callable<Integer> {
    private static final long TICKS_PER_SECOND = 100; // USER_HZ on Linux

    @Option(names = "--data", defaultValue = ".streamhouse", description = "The stack's data directory (default ${DEFAULT-VALUE}).")
    Path data;
    @Option(names = "--window", defaultValue = "PT60S", description = "How long to measure (default ${DEFAULT-VALUE}).")
    Duration window;
    @Option(names = "--threads", description = "Also print each process's busiest threads.")
    boolean threads;

    public static void main(String[] args) {
        System.exit(BenchmarkCommand.execute("idle-benchmark", new IdleBenchmark(), args));
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        Map<Long, String> processes = processes(new ObjectMapper().readTree(data.resolve("status.json").toFile()));
        Map<Long, Long> before = new HashMap<>();
        Map<Long, Map<String, Long>> threadsBefore = new HashMap<>();
        for (long pid : processes.keySet()) {
            before.put(pid, ticks(Path.of("/proc", Long.toString(pid), "stat")));
            threadsBefore.put(pid, threadTicks(pid));
        }
        long start = System.nanoTime();
        Thread.sleep(window.toMillis());
        double seconds = (System.nanoTime() - start) / 1e9;
        record Row(String name, long pid, double cores, Map<String, Double> threads) {
        }
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<Long, String> p : processes.entrySet()) {
            long after;
            try {
                after = ticks(Path.of("/proc", Long.toString(p.getKey()), "stat"));
            } catch (IOException gone) {
                out.println(p.getValue() + " (pid " + p.getKey() + ") ended during the window: not counted");
                continue;
            }
            Map<String, Double> byThread = new LinkedHashMap<>();
            if (threads) {
                Map<String, Long> b = threadsBefore.get(p.getKey());
                threadTicks(p.getKey()).forEach((name, t) -> byThread.merge(name.replaceAll("\\d+", "N"),
                        (t - b.getOrDefault(name, 0L)) / (double) TICKS_PER_SECOND / seconds, Double::sum));
            }
            rows.add(new Row(p.getValue(), p.getKey(), (after - before.get(p.getKey())) / (double) TICKS_PER_SECOND / seconds, byThread));
        }
        rows.sort(Comparator.comparingDouble(Row::cores).reversed());
        double total = 0;
        for (Row r : rows) {
            total += r.cores();
            out.printf(Locale.ROOT, "%-24s pid %-8d %.3f cores%n", r.name(), r.pid(), r.cores());
            if (threads) {
                r.threads().entrySet().stream().filter(e -> e.getValue() >= 0.001)
                        .sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(8)
                        .forEach(e -> out.printf(Locale.ROOT, "    %-40s %.3f%n", e.getKey(), e.getValue()));
            }
        }
        out.printf(Locale.ROOT, "total %.3f cores over %.1f s (%d processes)%n", total, seconds, rows.size());
        return 0;
    }

    /** The launcher and the components of {@code status.json}, with every process under each, by pid. */
    static Map<Long, String> processes(JsonNode status) {
        Map<Long, String> named = new LinkedHashMap<>();
        named.put(status.path("launcherPid").asLong(), "launcher");
        for (JsonNode c : status.path("components")) {
            if (c.path("pid").asLong() > 0) {
                named.put(c.path("pid").asLong(), c.path("name").asText());
            }
        }
        Map<Long, String> all = new LinkedHashMap<>(named);
        for (Map.Entry<Long, String> p : named.entrySet()) {
            ProcessHandle.of(p.getKey()).ifPresent(h -> h.descendants().forEach(d -> all.putIfAbsent(d.pid(),
                    p.getValue() + "/" + d.info().command().map(cmd -> Path.of(cmd).getFileName().toString()).orElse("?"))));
        }
        all.keySet().removeIf(pid -> !Files.exists(Path.of("/proc", Long.toString(pid), "stat")));
        return all;
    }

    /** utime + stime of a {@code /proc/.../stat} file, in clock ticks. */
    static long ticks(Path stat) throws IOException {
        String s = Files.readString(stat);
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** Ticks of each thread of {@code pid}, by thread name (threads of one name summed). */
    private static Map<String, Long> threadTicks(long pid) throws IOException {
        Map<String, Long> byName = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String s = Files.readString(task.resolve("stat"));
                    byName.merge(s.substring(s.indexOf('(') + 1, s.lastIndexOf(')')), ticks(task.resolve("stat")), Long::sum);
                } catch (IOException gone) {
                    // the thread ended
                }
            }
        }
        return byName;
    }
}
