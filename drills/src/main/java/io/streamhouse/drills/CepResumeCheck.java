package io.streamhouse.drills;

import java.io.IOException;
import java.nio.file.Path;
import java.util.regex.Matcher;

/** kill-cep: the job's log after the kill names the checkpoint it resumed from; it must be the newest retained at the kill. */
final class CepResumeCheck implements Check<CepResumeCheck.Found> {
    record Found(String newestCheckpointAtKill, String resumedFrom, boolean passed) {
    }

    private final String newestAtKill;
    private final long logOffset;

    CepResumeCheck(String newestAtKill, long logOffset) {
        this.newestAtKill = newestAtKill;
        this.logOffset = logOffset;
    }

    @Override
    public CheckResult<Found> run(CheckContext on) throws IOException {
        Path logFile = on.stack().data().resolve("logs").resolve(Drill.CEP_LOG);
        String resumed = null;
        for (String line : Fault.logSince(logFile, logOffset).split("\n")) {
            Matcher m = Drill.RESUMED.matcher(line);
            if (m.find()) {
                resumed = m.group(1);
            }
        }
        Found cep = new Found(newestAtKill, resumed, newestAtKill != null && newestAtKill.equals(resumed));
        return CheckResult.failedIf(!cep.passed(), cep, "the CEP job did not resume from its newest retained checkpoint ("
                + cep.newestCheckpointAtKill() + "), but from " + cep.resumedFrom());
    }
}
