package io.streamhouse.supervisor;

import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The supervisor against real child JVMs ({@link TestChild}, 32 MB heaps): restart, give up, stop, start failure. */
class SupervisorIT {
    private final List<SupervisorEvent> events = new CopyOnWriteArrayList<>();
    private final List<SupervisedChild> started = new ArrayList<>();
    private final List<Long> pids = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        started.forEach(SupervisedChild::close);
        try {
            // Every child any test launched, by PID: none may survive its test.
            await().atMost(Duration.ofSeconds(10)).until(() -> pids.stream().noneMatch(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)));
        } finally {
            pids.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly)); // only if the wait failed
        }
    }

    private Supervisor supervisor(RestartPolicy policy) {
        return new Supervisor(policy, events::add);
    }

    private SupervisedChild track(SupervisedChild child) {
        started.add(child);
        pids.add(child.pid());
        return child;
    }

    @Test
    void aChildIgnoresTheTerminalsCtrlCAndHangUpAndStillRunsItsHooksOnSigterm() throws Exception {
        SupervisedChild child = track(supervisor(RestartPolicy.NEVER).start(TestChildren.spec("deaf")));
        assertThat(child.endpoint()).as("the pid is the JVM's own: the shell exec'd it").isEqualTo(Long.toString(child.pid()));

        String status = Files.readString(java.nio.file.Path.of("/proc", Long.toString(child.pid()), "status"));
        long ignored = signalMask(status, "SigIgn");
        long caught = signalMask(status, "SigCgt");
        assertThat(ignored & 0b11).as("SIGHUP (1) and SIGINT (2) ignored: " + status).isEqualTo(0b11);
        assertThat(caught & (1L << 14)).as("SIGTERM (15) caught by the JVM, which then runs its shutdown hooks").isNotZero();
    }

    /** A {@code /proc/<pid>/status} signal mask ({@code SigIgn}, {@code SigCgt}): bit n-1 is signal n. */
    private static long signalMask(String status, String field) {
        return status.lines().filter(l -> l.startsWith(field + ":")).findFirst()
                .map(l -> Long.parseUnsignedLong(l.substring(field.length() + 1).trim(), 16)).orElseThrow();
    }

    @Test
    void aKilledChildIsReportedAndRestartedAfterItsBackoff() throws Exception {
        Supervisor supervisor = supervisor(new RestartPolicy(3, Duration.ofMillis(300), Duration.ofSeconds(2), Duration.ofSeconds(60)));
        // Readiness from the log: the way the CEP job is watched.
        SupervisedChild child = track(supervisor.start(TestChildren.spec("killme", new Readiness.LogLine(TestChild.READY))));
        long first = child.pid();
        assertThat(child.status().state()).isEqualTo(ChildState.RUNNING);
        assertThat(child.endpoint()).isEqualTo(Long.toString(first));

        long t0 = System.nanoTime();
        child.kill();
        assertThat(ProcessHandle.of(first).map(ProcessHandle::isAlive).orElse(false)).isFalse();

        await().atMost(Duration.ofSeconds(30)).until(() -> child.status().state() == ChildState.RUNNING && child.pid() != first);
        pids.add(child.pid());
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("restart waited out the backoff").isGreaterThanOrEqualTo(Duration.ofMillis(300));
        ChildStatus status = child.status();
        assertThat(status.restarts()).isEqualTo(1);
        assertThat(status.lastExit()).hasValueSatisfying(e -> assertThat(e.describe()).isEqualTo("killed by signal 9 (SIGKILL)"));
        assertThat(status.endpoint()).isEqualTo(Long.toString(child.pid()));
        assertThat(events).map(SupervisorEvent::line).anySatisfy(l -> assertThat(l)
                .isEqualTo("killme (pid " + first + ") died: killed by signal 9 (SIGKILL); restart 1 of 3 in 300 ms"));
        assertThat(events).filteredOn(e -> e instanceof SupervisorEvent.Restarted).hasSize(1);
        assertThat(supervisor.statuses()).containsExactly(status);
    }

    @Test
    void aChildThatKeepsDyingIsGivenUpAfterTheBoundedRestarts() throws Exception {
        Supervisor supervisor = supervisor(new RestartPolicy(2, Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofSeconds(60)));
        SupervisedChild child = track(supervisor.start(TestChildren.spec("crashy", "--exit-after-ms", "200", "--exit-code", "3")));

        await().atMost(Duration.ofSeconds(60)).until(() -> child.status().state() == ChildState.FAILED);
        assertThat(events).filteredOn(e -> e instanceof SupervisorEvent.Died).map(e -> ((SupervisorEvent.Died) e).restart())
                .containsExactly(1, 2);
        assertThat(events).filteredOn(e -> e instanceof SupervisorEvent.Died).map(e -> ((SupervisorEvent.Died) e).backoff())
                .containsExactly(Duration.ofMillis(50), Duration.ofMillis(100));
        assertThat(events.get(events.size() - 1)).isInstanceOfSatisfying(SupervisorEvent.GaveUp.class,
                g -> assertThat(g.line()).startsWith("crashy FAILED: exit code 3 after 2 consecutive restarts; giving up"));
        assertThat(child.status().restarts()).isEqualTo(2);
        assertThat(child.isAlive()).isFalse();
    }

    @Test
    void stopEndsTheChildAndWhatItStartedAndIsNotFollowedByARestart() throws Exception {
        Supervisor supervisor = supervisor(new RestartPolicy(3, Duration.ofMillis(50), Duration.ofMillis(50), Duration.ofSeconds(60)));
        // Exits cleanly on stdin EOF, leaving a grandchild behind unless the stop ends it too.
        SupervisedChild child = track(supervisor.start(TestChildren.spec("parent", "--grandchild")));
        ProcessHandle process = child.processHandle().orElseThrow();
        List<ProcessHandle> grandchildren = process.descendants().toList();
        assertThat(grandchildren).isNotEmpty();
        grandchildren.forEach(g -> pids.add(g.pid()));
        // Ignores stdin EOF: its stop must escalate to SIGTERM after the 2 s grace.
        SupervisedChild stubborn = track(supervisor.start(TestChildren.spec("stubborn", "--ignore-stdin")));
        ProcessHandle stubbornProcess = stubborn.processHandle().orElseThrow();

        child.stop();
        stubborn.stop();

        assertThat(process.isAlive()).isFalse();
        assertThat(stubbornProcess.isAlive()).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> grandchildren.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(events).filteredOn(e -> e instanceof SupervisorEvent.Stopped).map(SupervisorEvent::line).containsExactly(
                "parent (pid " + process.pid() + ") stopped", "stubborn (pid " + stubbornProcess.pid() + ") stopped (forcibly)");
        // Longer than the 50 ms backoff: a restart would have happened.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> child.status().state() == ChildState.STOPPED
                && stubborn.status().state() == ChildState.STOPPED);
        assertThat(events).noneMatch(e -> e instanceof SupervisorEvent.Died || e instanceof SupervisorEvent.Restarted);

        child.start(); // a stopped component starts again on request
        pids.add(child.pid());
        assertThat(child.status().state()).isEqualTo(ChildState.RUNNING);
        assertThat(child.status().restarts()).isEqualTo(1);
    }

    @Test
    void aStopDoesNotWaitForARestartThatHangs() throws Exception {
        Supervisor supervisor = supervisor(new RestartPolicy(3, Duration.ofMillis(50), Duration.ofMillis(50), Duration.ofSeconds(60)));
        java.nio.file.Path marker = Files.createTempDirectory(java.nio.file.Path.of("target").toAbsolutePath(), "once-").resolve("started");
        // The restart never becomes ready: without abandoning it, stop would wait out the 30 s start timeout.
        SupervisedChild child = track(supervisor.start(TestChildren.spec("hangs", "--ready-once", marker.toString())));
        long first = child.pid();
        child.kill();
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.current().children()
                .anyMatch(p -> p.pid() != first && p.info().commandLine().orElse("").contains(marker.toString())));
        ProcessHandle hanging = ProcessHandle.current().children()
                .filter(p -> p.pid() != first && p.info().commandLine().orElse("").contains(marker.toString())).findFirst().orElseThrow();
        pids.add(hanging.pid());

        long t0 = System.nanoTime();
        child.stop();

        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("stop abandoned the start under way").isLessThan(Duration.ofSeconds(20));
        assertThat(hanging.isAlive()).isFalse();
        assertThat(child.status().state()).isEqualTo(ChildState.STOPPED);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> child.status().state() == ChildState.STOPPED);
    }

    @Test
    void aChildThatExitsBeforeReadyFailsTheStartWithItsLogTail() throws Exception {
        Supervisor supervisor = supervisor(RestartPolicy.LAUNCHER);
        ChildSpec spec = TestChildren.spec("broken", "--fail-before-ready", "2");

        assertThatThrownBy(() -> supervisor.start(spec))
                .isInstanceOf(ChildStartException.class)
                .hasMessageContaining("broken closed stdout before it was ready (exit code 2)")
                .hasMessageContaining("Last lines of " + spec.logFile())
                .hasMessageContaining("cannot bind its port (planted failure)");
        assertThat(supervisor.child("broken")).hasValueSatisfying(c -> assertThat(c.status().state()).isEqualTo(ChildState.FAILED));
        assertThat(Files.readString(spec.logFile())).contains("planted failure");
    }
}
