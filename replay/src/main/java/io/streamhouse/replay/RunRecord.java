package io.streamhouse.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.control.RunResults;
import picocli.CommandLine;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * Every run of a subcommand that acts on a stack (one with the {@link ReplayCli.Stack} options: rebuild, backfill,
 * promote, discard, each drill) leaves one file in {@code <data>/results/} ({@link RunResults}): what ran, when, its
 * exit and verdict, and the summary {@code --json} prints, for the api's {@code GET /v1/replay/runs}. Help and usage
 * errors leave none, and neither does a run inside another (a drill's own rebuild and discard): the drill's summary
 * carries what it found. A file that cannot be written costs one line on standard error, never the run's exit code.
 */
final class RunRecord {
    /** Secrets a command line may carry inside a value (a JDBC URL's password, a URL's user info) are not kept. */
    private static final Pattern PASSWORD = Pattern.compile("(?i)(password=)[^&;\\s]*");
    private static final Pattern USER_INFO = Pattern.compile("://[^/@\\s]+@");
    /** Recorded runs under way in this JVM: one CLI command at a time, so more than one means a run inside another. */
    private static final AtomicInteger RUNNING = new AtomicInteger();

    private RunRecord() {
    }

    /** Runs the parsed command as picocli's {@link CommandLine.RunLast} does, and records it when it acts on a stack. */
    static int execute(CommandLine.ParseResult parsed, String[] args, ReplayCli root, Clock clock, PrintStream err) {
        List<CommandLine> chain = parsed.asCommandLineList();
        CommandLine last = chain.get(chain.size() - 1);
        Optional<ReplayCli.Stack> stack = last.getCommandSpec().mixins().values().stream()
                .map(CommandLine.Model.CommandSpec::userObject)
                .filter(ReplayCli.Stack.class::isInstance).map(ReplayCli.Stack.class::cast).findFirst();
        boolean help = chain.stream().anyMatch(c -> c.isUsageHelpRequested() || c.isVersionHelpRequested());
        if (stack.isEmpty() || help || RUNNING.get() > 0) {
            return new CommandLine.RunLast().execute(parsed);
        }
        RUNNING.incrementAndGet();
        List<String> path = chain.subList(1, chain.size()).stream().map(CommandLine::getCommandName).toList();
        Instant started = clock.instant();
        int exit = ReplayCli.ENVIRONMENT;
        Throwable failure = null;
        try {
            exit = new CommandLine.RunLast().execute(parsed);
            return exit;
        } catch (CommandLine.ExecutionException e) {
            failure = e.getCause() != null ? e.getCause() : e;
            exit = ReplayCli.exitCodeOf(failure);
            throw e;
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            RUNNING.decrementAndGet();
            Path dir = null;
            try {
                dir = stack.get().data().resolve(RunResults.DIR);
                ObjectNode json = json(path, args, started, clock.instant(), exit, failure, root.summary());
                RunResults.write(dir, started, String.join("-", path), Records.JSON.writeValueAsString(json) + "\n");
            } catch (Exception e) {
                err.println("replay: could not record this run in " + (dir == null ? "the data directory" : dir) + ": " + e);
            }
        }
    }

    /** The file's content (docs/replay.md, "Results of each run"). */
    static ObjectNode json(List<String> path, String[] args, Instant started, Instant finished, int exit, Throwable failure,
                           Object summary) {
        // Milliseconds, as the file name has them, so durationMs is exactly finishedAt - startedAt.
        started = started.truncatedTo(ChronoUnit.MILLIS);
        finished = finished.truncatedTo(ChronoUnit.MILLIS);
        ObjectNode json = Records.JSON.createObjectNode();
        JsonNode summaryJson = summary == null ? null : Records.JSON.valueToTree(summary);
        json.put("kind", path.get(0));
        json.put("command", String.join(" ", path));
        json.putPOJO("arguments", Arrays.stream(args).map(RunRecord::withoutSecrets).toList());
        json.put("startedAt", started.toString());
        json.put("finishedAt", finished.toString());
        json.put("durationMs", Duration.between(started, finished).toMillis());
        json.put("exitCode", exit);
        json.put("verdict", verdict(exit, summaryJson));
        if (failure == null) {
            json.putNull("error");
        } else {
            json.put("error", failure instanceof ReplayCli.BadInput || failure instanceof Endpoints.EnvironmentException
                    ? failure.getMessage() : failure.toString());
        }
        json.set("summary", summaryJson);
        return json;
    }

    /**
     * The summary's own {@code result} (EQUAL or DIVERGENT for a rebuild or backfill, PASS or FAIL for a drill, DONE for
     * promote and discard); without a summary, what the exit code says.
     */
    static String verdict(int exit, JsonNode summary) {
        if (summary != null && summary.path("result").isTextual()) {
            return summary.path("result").asText();
        }
        return switch (exit) {
            case ReplayCli.EQUAL -> "DONE";
            case ReplayCli.DIVERGENT -> "DIVERGENT";
            case ReplayCli.BAD_INPUT -> "BAD_INPUT";
            default -> "ENVIRONMENT";
        };
    }

    static String withoutSecrets(String arg) {
        return USER_INFO.matcher(PASSWORD.matcher(arg).replaceAll("$1***")).replaceAll("://***@");
    }
}
