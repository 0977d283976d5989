package io.streamhouse.drills;

import io.streamhouse.control.ControlChannel;
import io.streamhouse.detection.cep.RetainedCheckpoints;
import io.streamhouse.replay.Endpoints;
import io.streamhouse.replay.ReplayCli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The fault, through the launcher's control channel ({@code <data>/control}) as {@code ./streamhouse
 * kill|restart|stop|start} sends it, on its own thread: stop, start and restart answer only once done. {@link #down}
 * opens once the component is down (or its restart began); what the fault learnt (the checkpoint at a kill, the
 * restore after a wipe) is read by the checks afterwards.
 */
final class Fault {
    private final Path data;
    private final Scenario scenario;
    final PrintStream log;
    final long began;
    final CountDownLatch down = new CountDownLatch(1);
    final CountDownLatch finished = new CountDownLatch(1);
    final List<String> answers = new ArrayList<>();
    volatile long faultAt = -1;
    /** When the component was down (killed, stopped) or its restart began: authorizes sent after it test the recovery. */
    volatile long downAt = -1;
    volatile Long startReadyMs;
    /** Streams' own restore after the wipe, read from the restarted api's log. */
    volatile RestoreTimeline.Restore restore;
    volatile Long backAt;
    volatile String newestCheckpointAtKill;
    volatile long cepLogOffset;
    volatile String error;

    /** The cluster member a cluster scenario kills; null for the others, which fault their scenario's component. */
    private final ClusterTarget target;

    Fault(Path data, Scenario scenario, ClusterTarget target, PrintStream log, long began) {
        this.data = data;
        this.scenario = scenario;
        this.target = target;
        this.log = log;
        this.began = began;
    }

    void start() {
        cepLogOffset = size(data.resolve("logs").resolve(Drill.CEP_LOG));
        faultAt = System.currentTimeMillis();
        Thread t = new Thread(() -> {
            try {
                run();
            } catch (RuntimeException | IOException | LinkageError e) {
                error = e.toString();
                log.println("  fault failed: " + e.getMessage());
            } finally {
                down.countDown();
                finished.countDown();
            }
        }, "drill-fault");
        t.setDaemon(true);
        t.start();
    }

    private void run() throws IOException {
        String c = target != null ? target.component() : scenario.component;
        switch (scenario) {
            case KILL_BROKER_LEADER, KILL_TASKMANAGER, KILL_CONNECT_WORKER -> {
                target.beforeFault();
                answer("kill", c, Duration.ofSeconds(30));
                downAt = System.currentTimeMillis();
                down.countDown();
            }
            case KILL_API, KILL_CONNECT, KILL_CEP -> {
                // The same request ./streamhouse kill <component> sends; the launcher answers once the SIGKILL is sent.
                answer("kill", c, Duration.ofSeconds(30));
                downAt = System.currentTimeMillis();
                if (scenario == Scenario.KILL_CEP) {
                    // The dead job writes no more: its newest retained checkpoint is now fixed.
                    newestCheckpointAtKill = RetainedCheckpoints.newest(data.resolve("cep/checkpoints").toString()).orElse(null);
                }
                down.countDown();
            }
            case WIPE_API_STATE -> {
                answer("stop", c, Duration.ofSeconds(60));
                downAt = System.currentTimeMillis();
                down.countDown();
                Path state = data.resolve("api-state");
                long files = wipe(state);
                log.println("  wiped " + state + " (" + files + " files and directories)");
                Path apiLog = data.resolve("logs").resolve(Drill.API_LOG);
                long apiLogOffset = size(apiLog);
                String started = answer("start", c, Duration.ofSeconds(180));
                Matcher m = Pattern.compile("ready in (\\d+) ms").matcher(started);
                startReadyMs = m.find() ? Long.parseLong(m.group(1)) : null;
                restore = awaitRestoreLines(apiLog, apiLogOffset, Duration.ofSeconds(15));
            }
            case RESTART_BROKER -> {
                // No moment at which it is down is reported: the restart request starts the outage.
                downAt = faultAt;
                down.countDown();
                answer("restart", c, Duration.ofSeconds(180));
                backAt = System.currentTimeMillis();
            }
        }
    }

    private String answer(String action, String component, Duration timeout) {
        ControlChannel.Response r = ControlChannel.send(data.resolve(ControlChannel.DIR),
                new ControlChannel.Request(action, component), timeout);
        long at = System.currentTimeMillis();
        if (!r.ok()) {
            throw new Endpoints.EnvironmentException("the launcher refused '" + action + " " + component + "': " + r.message());
        }
        synchronized (answers) {
            answers.add(r.message());
        }
        log.println("  " + action + " " + component + " at +" + (faultAt - began) + " ms, answered after " + (at - faultAt) + " ms: " + r.message());
        return r.message();
    }

    void awaitDone(Duration timeout) throws InterruptedException {
        if (!finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            error = "the fault's requests were not answered within " + timeout.toSeconds() + " s";
        }
    }

    List<String> answers() {
        synchronized (answers) {
            return List.copyOf(answers);
        }
    }

    /** Deletes everything under {@code dir} (kept itself); refuses a directory outside the stack's data directory. */
    private long wipe(Path dir) throws IOException {
        Path realData = data.toRealPath();
        if (!Files.isDirectory(dir)) {
            throw new Endpoints.EnvironmentException("no api state directory at " + dir);
        }
        Path real = dir.toRealPath();
        if (!real.startsWith(realData) || real.equals(realData)) {
            throw new ReplayCli.BadInput("refusing to wipe " + real + ": not inside the stack's data directory " + realData);
        }
        long n = 0;
        try (Stream<Path> all = Files.walk(real)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                if (!p.equals(real)) {
                    Files.delete(p);
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * The restarted api's restore, from its {@code StreamsTimeline} lines after {@code offset}: Streams calls the state
     * listener after it reports RUNNING, so the lines may follow readiness by a moment; waits until both applications
     * logged theirs or {@code timeout} passed, and takes what is there (null when nothing).
     */
    private static RestoreTimeline.Restore awaitRestoreLines(Path apiLog, long offset, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<RestoreTimeline.Restore> restore = RestoreTimeline.parse(logSince(apiLog, offset));
            if (restore.isPresent() && restore.get().apps().size() >= 2 || System.nanoTime() > deadline) {
                return restore.orElse(null);
            }
            LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        }
    }

    /** What a child wrote to its log from {@code offset} on; restarts append, so a shorter file was started afresh: all of it. */
    static String logSince(Path file, long offset) throws IOException {
        if (!Files.isRegularFile(file)) {
            return "";
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long from = offset <= channel.size() ? offset : 0;
            ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(channel.size() - from));
            while (buffer.hasRemaining() && channel.read(buffer, from + buffer.position()) >= 0) {
                // read to the end as it was when opened
            }
            return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
        }
    }

    private static long size(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
