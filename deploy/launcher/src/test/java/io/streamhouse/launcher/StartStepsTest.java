package io.streamhouse.launcher;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StartStepsTest {

    @Test
    void upStartsThePartsInDependencyOrderWithMoreInstancesOnlyWhenAsked() {
        assertThat(names(Launcher.steps(LaunchOptions.parse(new String[]{"up"}))))
                .containsExactly("platform", "cdc", "ingest+api", "cep", "lake", "sql");
        assertThat(names(Launcher.steps(LaunchOptions.parse(new String[]{"up", "--api-instances", "2", "--ingest-instances", "3"}))))
                .containsExactly("platform", "cdc", "ingest+api", "api-instances", "ingest-instances", "cep", "lake", "sql");
    }

    @Test
    void eachStepIsAnnouncedThenPrintsItsLinesAndASkippedStepOnlySaysWhy() throws Exception {
        var bytes = new ByteArrayOutputStream();
        var listener = new StartListener(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<String> order = new ArrayList<>();
        listener.run(List.of(step("a", null, order), step("b", "Not starting b.", order), step("c", null, order)),
                new StartContext(LaunchOptions.parse(new String[]{"up"}), Instant.now(), new RunningStack()));

        assertThat(order).containsExactly("a", "c");
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines().toList())
                .containsExactly("Starting a ...", "  a is ready", "Not starting b.", "Starting c ...", "  c is ready");
        assertThat(listener.timingLine()).matches("  start-up by component: a \\d+\\.\\d s, c \\d+\\.\\d s");
    }

    @Test
    void aStepThatFailsEndsTheStartBeforeTheNextOne() {
        List<String> order = new ArrayList<>();
        StartStep failing = new StartStep() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public String announce(StartContext context) {
                return "Starting broken ...";
            }

            @Override
            public void start(StartContext context, Consumer<String> out) {
                throw new IllegalStateException("broken would not start");
            }
        };
        var listener = new StartListener(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThatThrownBy(() -> listener.run(List.of(failing, step("after", null, order)),
                new StartContext(LaunchOptions.parse(new String[]{"up"}), Instant.now(), new RunningStack())))
                .hasMessage("broken would not start");
        assertThat(order).isEmpty();
    }

    private static List<String> names(List<StartStep> steps) {
        return steps.stream().map(StartStep::name).toList();
    }

    private static StartStep step(String name, String skipLine, List<String> order) {
        return new StartStep() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Optional<String> skip(StartContext context) {
                return Optional.ofNullable(skipLine);
            }

            @Override
            public String announce(StartContext context) {
                return "Starting " + name + " ...";
            }

            @Override
            public void start(StartContext context, Consumer<String> out) {
                order.add(name);
                out.accept("  " + name + " is ready");
            }
        };
    }
}
