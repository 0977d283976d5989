package io.streamhouse.drills;

/**
 * kill-taskmanager: the job restored from a checkpoint at least as new as the latest it had completed just before the
 * kill (one may complete between that read and the kill, never an older one). A job with no checkpoint before the
 * kill has nothing to restore: reported, not failed (the other checks still count every alert and decision).
 */
final class FlinkRestoreCheck implements Check<FlinkRestoreCheck.Found> {
    record Found(Long completedAtKill, Long restoredFrom, boolean passed, String note) {
    }

    private final Long completedAtKill;
    private final Long restoredFrom;

    FlinkRestoreCheck(FlinkJob.State atKill, FlinkJob.State recovered) {
        this.completedAtKill = atKill == null ? null : atKill.latestCompleted();
        this.restoredFrom = recovered == null ? null : recovered.latestRestored();
    }

    @Override
    public CheckResult<Found> run(CheckContext on) {
        return judge(completedAtKill, restoredFrom);
    }

    static CheckResult<Found> judge(Long completedAtKill, Long restoredFrom) {
        if (completedAtKill == null) {
            return CheckResult.passed(new Found(null, restoredFrom, true, "no checkpoint completed before the kill"));
        }
        boolean passed = restoredFrom != null && restoredFrom >= completedAtKill;
        return CheckResult.failedIf(!passed, new Found(completedAtKill, restoredFrom, passed, null),
                "the CEP job did not restore from its latest checkpoint at the kill (" + completedAtKill + ") or a newer one, but from "
                        + (restoredFrom == null ? "none" : restoredFrom));
    }
}
