package io.streamhouse.drills;

import io.streamhouse.domain.topic.ConnectNames;
import io.streamhouse.lake.LakeAudit;
import io.streamhouse.lake.LakeAuditProcess;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Iceberg equals Kafka for every landed table (the lake's own audit, in its own JVM, with Iceberg's reader), polled
 * until nothing is missing: the sink commits each second. Not checked when the lake does not run.
 */
final class LakeCheck implements Check<LakeCheck.Found> {
    record Found(boolean ran, Boolean equal, long missing, long extra, long duplicateRows, List<LakeAudit.TopicAudit> tables,
                 String note) {
    }

    private final boolean lakeRuns;
    private final int timeoutSeconds;

    LakeCheck(boolean lakeRuns, int timeoutSeconds) {
        this.lakeRuns = lakeRuns;
        this.timeoutSeconds = timeoutSeconds;
    }

    @Override
    public CheckResult<Found> run(CheckContext on) throws InterruptedException {
        Found lake = audit(on);
        return CheckResult.failedIf(Boolean.FALSE.equals(lake.equal()), lake, "Iceberg is not equal to Kafka: " + lake.missing()
                + " records missing, " + lake.extra() + " rows extra, " + lake.duplicateRows() + " rows twice");
    }

    private Found audit(CheckContext on) throws InterruptedException {
        if (!lakeRuns) {
            return new Found(false, null, 0, 0, 0, List.of(), "the lake does not run");
        }
        Path catalog = on.stack().data().resolve("platform/lake-tables/lake-catalog.properties");
        if (!Files.isRegularFile(catalog)) {
            return new Found(true, false, 0, 0, 0, List.of(), "the lake runs but " + catalog + " is missing");
        }
        on.log().println("  auditing the lake: Iceberg scans against read_committed reads of each landed topic ...");
        long until = System.currentTimeMillis() + timeoutSeconds * 1000L;
        LakeAuditProcess.Result r;
        while (true) {
            try {
                r = LakeAuditProcess.audit(catalog, on.bootstrap(), ConnectNames.LAKE_DEAD_LETTER_TOPIC,
                        on.stack().data().resolve("replay/drill-lake-audit"), Duration.ofSeconds(180));
            } catch (IllegalStateException | UncheckedIOException e) {
                return new Found(true, false, 0, 0, 0, List.of(), e.getMessage().lines().findFirst().orElse(""));
            }
            long extra = r.topics().stream().mapToLong(LakeAudit.TopicAudit::extra).sum();
            long twice = r.topics().stream().mapToLong(LakeAudit.TopicAudit::duplicateRows).sum();
            // Missing rows may still be on their way; extra or doubled rows never go away.
            if (r.equal() || extra > 0 || twice > 0 || System.currentTimeMillis() > until) {
                break;
            }
            TimeUnit.SECONDS.sleep(2); // the sink commits every second: poll the next commit, bounded by the deadline
        }
        return new Found(true, r.equal(), r.topics().stream().mapToLong(LakeAudit.TopicAudit::missing).sum(),
                r.topics().stream().mapToLong(LakeAudit.TopicAudit::extra).sum(),
                r.topics().stream().mapToLong(LakeAudit.TopicAudit::duplicateRows).sum(), r.topics(), null);
    }
}
