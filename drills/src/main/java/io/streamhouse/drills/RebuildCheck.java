package io.streamhouse.drills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.replay.CepShadow;
import io.streamhouse.replay.ReplayCli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A fresh rebuild of what runs (the api's two applications, and the CEP job when its group exists) into a shadow,
 * equal to live; then the shadow is discarded. The replay CLI's own {@code rebuild} and {@code discard}, in-process.
 */
final class RebuildCheck implements Check<RebuildCheck.Found> {
    /** {@code details}: where the rebuild's whole summary (every divergent key with both values) was kept, if it was not EQUAL. */
    record Found(String shadowId, int exitCode, String result, Long divergences, String discard, String details) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** How long a failed discard is retried: a crashed shadow's consumer group empties after its session timeout. */
    static final Duration DISCARD_RETRY = Duration.ofSeconds(90);

    private final boolean cepRuns;

    RebuildCheck(boolean cepRuns) {
        this.cepRuns = cepRuns;
    }

    @Override
    public CheckResult<Found> run(CheckContext on) throws Exception {
        Found rebuild = rebuild(on.stack(), on.log());
        return CheckResult.failedIf(rebuild.exitCode() != ReplayCli.EQUAL, rebuild, "the fresh rebuild was not equal to live (exit "
                + rebuild.exitCode() + ", " + rebuild.result() + ")");
    }

    private Found rebuild(ReplayCli.Stack stack, PrintStream log) throws Exception {
        String shadowId = "drill-" + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
        List<String> common = new ArrayList<>(List.of("--data", stack.data().toString()));
        if (stack.bootstrap() != null) {
            common.addAll(List.of("--bootstrap-servers", stack.bootstrap()));
        }
        if (stack.registry() != null) {
            common.addAll(List.of("--registry-url", stack.registry()));
        }
        String what = cepRuns ? "all" : "api";
        log.println("  rebuilding " + what + " into shadow " + shadowId + " and comparing with live ...");
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("rebuild", what, "--id", shadowId, "--json"));
        args.addAll(common);
        int code = ReplayCli.run(args.toArray(String[]::new), new PrintStream(captured, true, StandardCharsets.UTF_8), log);
        String result;
        Long divergences = null;
        try {
            JsonNode summary = JSON.readTree(captured.toString(StandardCharsets.UTF_8));
            result = summary.path("result").asText(null);
            divergences = summary.path("divergences").isNumber() ? summary.path("divergences").asLong() : null;
        } catch (Exception noSummary) {
            result = "no summary (exit " + code + ")";
        }
        String details = null;
        if (code != ReplayCli.EQUAL) {
            // The shadow is discarded next: keep what it found, or a failed drill cannot be diagnosed afterwards.
            Path kept = stack.data().resolve("replay").resolve("drills").resolve(shadowId + "-rebuild.json");
            Files.createDirectories(kept.getParent());
            Files.write(kept, captured.toByteArray());
            details = kept.toString();
            // The discard deletes the CEP shadow's own log too, where a failed bounded run says why.
            Path cepLog = stack.data().resolve("replay").resolve("state").resolve(CepShadow.groupId(shadowId) + ".log");
            if (Files.exists(cepLog)) {
                Path keptLog = kept.resolveSibling(shadowId + "-cep-shadow.log");
                Files.copy(cepLog, keptLog, StandardCopyOption.REPLACE_EXISTING);
                details += ", " + keptLog;
            }
        }
        List<String> discardArgs = new ArrayList<>(List.of("discard", shadowId));
        discardArgs.addAll(common);
        ByteArrayOutputStream discardOut = new ByteArrayOutputStream();
        // A shadow that failed may still hold its group until the dead member's session times out: try again, bounded.
        long until = System.currentTimeMillis() + DISCARD_RETRY.toMillis();
        int discarded;
        while (true) {
            discardOut.reset();
            discarded = ReplayCli.run(discardArgs.toArray(String[]::new), new PrintStream(discardOut, true, StandardCharsets.UTF_8), log);
            if (discarded == 0 || System.currentTimeMillis() > until) {
                break;
            }
            TimeUnit.SECONDS.sleep(5); // polling interval of a bounded retry
        }
        return new Found(shadowId, code, result, divergences,
                discarded == 0 ? discardOut.toString(StandardCharsets.UTF_8).strip() : "discard failed (exit " + discarded + ")", details);
    }
}
