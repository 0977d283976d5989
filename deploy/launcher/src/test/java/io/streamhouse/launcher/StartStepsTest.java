package io.streamhouse.launcher;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StartStepsTest {

    @Test
    void upStartsThePartsInDependencyOrderWithMoreInstancesOnlyWhenAsked() {
        assertThat(names(Launcher.steps(LaunchOptions.parse(new String[]{"up"}))))
                .containsExactly("platform", "postgresql", "cdc", "ingest+api", "cep", "lake", "sql");
        assertThat(names(Launcher.steps(LaunchOptions.parse(new String[]{"up", "--api-instances", "2", "--ingest-instances", "3"}))))
                .containsExactly("platform", "postgresql", "cdc", "ingest+api", "api-instances", "ingest-instances", "cep", "lake", "sql");
    }

    @Test
    void everyStepAfterThePlatformNeedsOnlyThePlatformAndMoreInstancesComeOneAppAtATime() {
        var steps = Launcher.steps(LaunchOptions.parse(new String[]{"up", "--api-instances", "2", "--ingest-instances", "3"}));
        assertThat(steps).filteredOn(s -> !s.name().equals("platform") && !s.name().endsWith("-instances"))
                .allSatisfy(s -> assertThat(s.needs()).containsExactly("platform"));
        assertThat(steps).filteredOn(s -> s.name().equals("ingest-instances"))
                .singleElement().satisfies(s -> assertThat(s.needs()).containsExactlyInAnyOrder("ingest+api", "api-instances"));
    }

    @Test
    void postgresqlStartsOnlyWhenCdcTheLakeOrTheQueryServiceRuns() throws Exception {
        PostgresStep postgres = new PostgresStep();
        assertThat(postgres.skip(context("up"))).isEmpty();
        assertThat(postgres.skip(context("up", "--without", "cdc,lake"))).as("the query service reads the lake's catalog").isEmpty();
        assertThat(postgres.skip(context("up", "--without", "cdc,sql"))).isEmpty();
        assertThat(postgres.skip(context("up", "--without", "cdc,cep,lake,sql"))).hasValueSatisfying(line -> assertThat(line)
                .isEqualTo("Not starting PostgreSQL: nothing in this stack uses it (cdc, lake and sql are left out)."));
    }

    @Test
    void eachStepIsAnnouncedThenPrintsItsLinesAndASkippedStepOnlySaysWhy() throws Exception {
        var bytes = new ByteArrayOutputStream();
        var listener = new StartListener(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        listener.run(List.of(step("a", null, order), step("b", "Not starting b.", order, "a"), step("c", null, order, "b")),
                context());

        assertThat(order).containsExactly("a", "c");
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines().toList())
                .containsExactly("Starting a ...", "  a is ready", "Not starting b.", "Starting c ...", "  c is ready");
        assertThat(listener.timingLine()).matches("  start-up by component: a \\d+\\.\\d s \\(\\d+\\.\\d–\\d+\\.\\d\\), "
                + "c \\d+\\.\\d s \\(\\d+\\.\\d–\\d+\\.\\d\\)");
    }

    @Test
    void stepsThatNeedNothingOfEachOtherStartSideBySide() throws Exception {
        CountDownLatch bStarted = new CountDownLatch(1), cStarted = new CountDownLatch(1);
        List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        // Each returns only once the other has started: run one after the other, the first would wait in vain and
        // fail the start.
        StartStep b = waiting("b", bStarted, cStarted, Duration.ofSeconds(20), order, "a");
        StartStep c = waiting("c", cStarted, bStarted, Duration.ofSeconds(20), order, "a");
        new StartListener(quiet()).run(List.of(step("a", null, order), b, c), context());

        assertThat(order).startsWith("a").containsExactlyInAnyOrder("a", "b", "c");
    }

    @Test
    void aStepThatFailsEndsTheStartAtOnceAndNothingThatNeedsItStarts() {
        List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        StartStep failing = new Named("broken") {
            @Override
            public void start(StartContext context, Consumer<String> out) {
                throw new IllegalStateException("broken would not start");
            }
        };
        // Still starting when the other fails: the start ends without waiting for it.
        CountDownLatch never = new CountDownLatch(1);
        StartStep slow = waiting("slow", new CountDownLatch(1), never, Duration.ofSeconds(20), order);
        var listener = new StartListener(quiet());
        try {
            assertThatThrownBy(() -> listener.run(List.of(slow, failing, step("after", null, order, "broken")), context()))
                    .hasMessage("broken would not start");
            assertThat(order).containsExactly("slow");
        } finally {
            never.countDown();
        }
    }

    /**
     * The step that fails is the last one to end (as the query service does when it is not ready within its timeout):
     * the start still fails. Repeated, since whether the failure is seen once every step has ended depended on which
     * completion callback ran first.
     */
    @Test
    void aStepThatFailsLastStillFailsTheStart() throws Exception {
        for (int i = 0; i < 300; i++) {
            StartStep failing = new Named("last", "first") {
                @Override
                public void start(StartContext context, Consumer<String> out) {
                    throw new IllegalStateException("last would not start");
                }
            };
            List<StartStep> steps = List.of(step("first", null, new java.util.concurrent.CopyOnWriteArrayList<>()), failing);
            StartContext context = context();
            assertThatThrownBy(() -> new StartListener(quiet()).run(steps, context)).as("run %d", i)
                    .hasMessage("last would not start");
        }
    }

    @Test
    void aStepListedBeforeOneItNeedsIsRefused() {
        assertThatThrownBy(() -> new StartListener(quiet()).run(List.of(step("b", null, new ArrayList<>(), "a"),
                step("a", null, new ArrayList<>())), context()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("step b needs a, which is not listed before it");
    }

    private static StartContext context() throws Exception {
        return context("up");
    }

    private static StartContext context(String... args) throws IOException {
        return new StartContext(LaunchOptions.parse(args), Instant.now(), new RunningStack());
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    private abstract static class Named implements StartStep {
        private final String name;
        private final Set<String> needs;

        Named(String name, String... needs) {
            this.name = name;
            this.needs = Set.of(needs);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Set<String> needs() {
            return needs;
        }

        @Override
        public String announce(StartContext context) {
            return "Starting " + name + " ...";
        }
    }

    /** A step that says it started, then waits for {@code latch}. */
    private static StartStep waiting(String name, CountDownLatch started, CountDownLatch latch, Duration atMost, List<String> order,
                                     String... needs) {
        return new Named(name, needs) {
            @Override
            public void start(StartContext context, Consumer<String> out) throws Exception {
                order.add(name);
                started.countDown();
                if (!latch.await(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException(name + " waited " + atMost + " in vain");
                }
            }
        };
    }

    private static List<String> names(List<StartStep> steps) {
        return steps.stream().map(StartStep::name).toList();
    }

    private static StartStep step(String name, String skipLine, List<String> order, String... needs) {
        return new Named(name, needs) {
            @Override
            public Optional<String> skip(StartContext context) {
                return Optional.ofNullable(skipLine);
            }

            @Override
            public void start(StartContext context, Consumer<String> out) {
                order.add(name);
                out.accept("  " + name + " is ready");
            }
        };
    }
}
