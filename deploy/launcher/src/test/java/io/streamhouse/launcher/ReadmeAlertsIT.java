package io.streamhouse.launcher;

import io.streamhouse.loadtests.generator.GeneratorCli;
import io.streamhouse.loadtests.score.ScoreCli;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's path to the CEP job's alerts, as a user runs it: {@code ./streamhouse up --fresh --no-demo} (the
 * launcher in its own JVM), then {@code ./streamhouse generate --events N --seed S} and {@code ./streamhouse score}
 * — the generator's and the scorer's command lines as the script gives them ({@code --target kafka} added to the
 * generator's), with their defaults: the generation ends a minute before now, and score waits for the alert topics to
 * stand still. Score's exit code 0 means every planted anomaly alerted and nothing else (recall 100 %, precision at
 * least 99.5 % per pattern), read read_committed with Kafka's own consumer. Fewer events than the README's 20,000, to
 * keep the suite short; CDC and the lake's query service, which the path does not use, are left out.
 */
class ReadmeAlertsIT {

    @Test
    void theReadmesGenerateAndScoreFindEveryPlantedAnomalyOnAFreshStack() throws Exception {
        Path data = Path.of("target", "readme-alerts-it").toAbsolutePath();
        Files.createDirectories(data);
        Path out = data.resolveSibling("readme-alerts-it.out");
        Path truth = data.resolveSibling("readme-alerts-it-gen");
        String dataArg = data.toString();
        Process launcher = LauncherJvm.up(data, out, "--no-demo", "--without", "cdc,sql");
        List<ProcessHandle> children = new ArrayList<>();
        try {
            children.addAll(launcher.descendants().toList());

            Output generated = new Output();
            int generate = GeneratorCli.run(new String[]{"--target", "kafka", "--events", "4000", "--seed", "11",
                    "--data", dataArg, "--out", truth.toString(), "--no-progress"}, generated.out, generated.out);
            System.out.print(generated);
            assertThat(generate).as("generate's exit code; its output:%n%s", generated).isZero();
            assertThat(generated.toString()).contains("Sent 4,000 to kafka");

            Output scored = new Output();
            int score = ScoreCli.run(new String[]{"--data", dataArg, "--truth", truth.toString()}, scored.out, scored.out);
            System.out.print(scored);
            assertThat(score).as("score's exit code (0: every pattern 100 %% recall, >= 99.5 %% precision); its output:%n%s",
                    scored).isZero();
            assertThat(scored.toString()).contains("PASS").doesNotContain("  missed ").doesNotContain("  extra ")
                    .containsPattern("card testing +[1-9]");

            assertThat(Launcher.down(options("down", dataArg))).isZero();
            assertThat(launcher.isAlive()).isFalse();
            await().atMost(Duration.ofSeconds(30)).until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            // Only if an assertion failed: never leave the launcher or what it started behind (by PID), and do not hide
            // that failure behind a slow shutdown. The children exit by themselves once the launcher is gone; what is
            // still alive after a minute is killed.
            children.addAll(launcher.descendants().toList());
            launcher.destroyForcibly();
            for (ProcessHandle child : children) {
                try {
                    child.onExit().get(60, TimeUnit.SECONDS);
                } catch (TimeoutException | ExecutionException e) {
                    child.destroyForcibly();
                }
            }
        }
    }

    private static LaunchOptions options(String command, String data) {
        return LaunchOptions.parse(new String[]{command, "--data", data});
    }

    /** A command's standard output and error, together. */
    private static final class Output {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        @Override
        public String toString() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
