package io.streamhouse.loadtests.score;

import io.streamhouse.loadtests.generator.Anomaly;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.Generator;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.loadtests.generator.GroundTruthFiles;
import io.streamhouse.loadtests.generator.StackEndpoints;
import org.apache.kafka.common.errors.TimeoutException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code ./streamhouse score}: reads the generator's ground truth, generates the run again from its configuration (to
 * know its event ids, checked against the ground truth), reads the alert topics read_committed until they stop growing,
 * resolves revisions and withdrawals, and prints recall and precision per pattern with every miss and every extra.
 * Exit 0 when every pattern has recall 100 % and precision ≥ 99.5 %, 1 when not, 2 when the ground truth is missing or
 * unreadable, 3 when the stack does not answer.
 */
@Command(name = "score", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Scores the running stack's alerts against the seeded generator's ground truth.")
public final class ScoreCli implements Callable<Integer> {

    @Option(names = "--truth", defaultValue = "target/gen", description = "The generator's --out directory (ground-truth.jsonl, summary.json) (default ${DEFAULT-VALUE}).")
    Path truth;
    @Option(names = "--data", defaultValue = ".streamhouse", description = "The stack's data directory: its broker, registry and Kafka logins (endpoints.properties) (default ${DEFAULT-VALUE}).")
    Path data;
    @Option(names = "--bootstrap", description = "Kafka bootstrap servers, loopback only (default: the stack's; else 127.0.0.1:9092).")
    String bootstrap;
    @Option(names = "--registry", description = "Schema registry URL, loopback only (default: the stack's; else http://127.0.0.1:8085).")
    String registry;
    @Option(names = "--timeout", defaultValue = "PT3M", description = "Longest wait for the alert topics to stop growing (default ${DEFAULT-VALUE}).")
    Duration timeout;
    @Option(names = "--quiet", defaultValue = "PT45S", description = "The alert topics count as complete once their ends stood still this long"
            + " (the CEP job evaluates the last 30 s of event time of an input once it has been quiet for 30 s, and commits alerts"
            + " at each checkpoint) (default ${DEFAULT-VALUE}).")
    Duration quiet;

    @Option(names = "--topic-prefix", defaultValue = "", description = "Score the alerts of topics named <prefix><live name>: a replay"
            + " shadow's, e.g. streamhouse-cep-shadow-<id>. after ./streamhouse replay rebuild cep --id <id> (default: the live topics).")
    String topicPrefix;

    private PrintStream stdout = System.out;
    private PrintStream stderr = System.err;

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.exit(io.streamhouse.control.CliLog.run("score", args, (a, terminal) -> run(a, System.out, terminal)));
    }

    /** Runs the command line; returns the exit code. */
    public static int run(String[] args, PrintStream stdout, PrintStream stderr) {
        ScoreCli cli = new ScoreCli();
        cli.stdout = stdout;
        cli.stderr = stderr;
        CommandLine cmd = new CommandLine(cli).registerConverter(Duration.class, Duration::parse);
        cmd.setOut(new PrintWriter(stdout, true));
        cmd.setErr(new PrintWriter(stderr, true));
        cmd.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof TimeoutException) {
                stderr.println("score: the stack does not answer (" + e.getMessage() + "); is it running (./streamhouse status)?");
                return 3;
            }
            stderr.println("score: " + e.getMessage());
            return 1;
        });
        return cmd.execute(args);
    }

    @Override
    public Integer call() throws IOException {
        if (!Files.isRegularFile(truth.resolve("ground-truth.jsonl")) || !Files.isRegularFile(truth.resolve("summary.json"))) {
            stderr.println("score: no ground truth in " + truth + " (ground-truth.jsonl, summary.json): run the generator first"
                    + " (./streamhouse generate), or give its --out as --truth");
            return 2;
        }
        List<Anomaly> planted = GroundTruthFiles.readAnomalies(truth);
        GeneratorConfig config = GroundTruthFiles.readConfig(truth);
        Generation generation = Generator.generate(config);
        if (!identities(generation.anomalies()).equals(identities(planted))) {
            stderr.println("score: generating " + truth.resolve("summary.json") + "'s configuration again does not give the anomalies of "
                    + truth.resolve("ground-truth.jsonl") + ": the files were written by another version of the generator, or edited");
            return 2;
        }
        stdout.printf(Locale.ROOT, "Ground truth %s: seed %d, %,d events, event time %s .. %s, %d planted anomalies%n", truth,
                config.seed(), config.events(), config.start(), lastEventTime(generation), planted.size());

        StackEndpoints stack = StackEndpoints.resolve(bootstrap, registry, data);
        stdout.printf(Locale.ROOT, "Reading %s read_committed from %s (stack from %s) until they stand still for %s (at most %s) ...%n",
                String.join(", ", Scoring.alertTopics(topicPrefix)), stack.bootstrapServers(), stack.source(), quiet, timeout);
        Scoring.Result result = Scoring.score(generation, planted, stack.bootstrapServers(), stack.registryUrl(), topicPrefix, quiet, timeout);
        result.print(stdout);
        boolean passed = result.passes();
        stdout.println(passed ? "PASS: every pattern has recall 100 % and precision >= 99.5 %"
                : "FAIL: not every pattern has recall 100 % and precision >= 99.5 %" + (result.unreadable().isEmpty() ? "" : ", or alerts were unreadable"));
        return passed ? 0 : 1;
    }

    private static Set<String> identities(List<Anomaly> anomalies) {
        Set<String> ids = new HashSet<>();
        anomalies.forEach(a -> ids.add(a.identity()));
        return ids;
    }

    private static String lastEventTime(Generation g) {
        return g.events().stream().map(e -> e.occurredAt()).max(java.util.Comparator.naturalOrder()).map(Object::toString).orElse("-");
    }
}
