package io.streamhouse.drills;

import java.util.List;

/**
 * The figure of issue #22's recovery goal ("answering again within 10 s of a kill -9 of the api") when the stack runs
 * more than one api instance: lookups of one key the killed instance owned, through a surviving instance, polled
 * from the fault; "answering again" is the first 200 to a lookup sent once the instance was down, stale (a standby
 * answered) or not. A lookup sent before it was down proves nothing: the owner may still have answered it.
 */
final class AnsweringAgain {

    /** One lookup: when it was sent and answered (epoch ms), its HTTP status (0: no answer) and, on a 200, its freshness. */
    record Poll(long sentAtMillis, long answeredAtMillis, int httpStatus, boolean stale, String servedBy) {
    }

    /**
     * @param answeringAgainAfterMs from the fault to the first 200 to a lookup sent once the instance was down (null: none)
     * @param staleAtFirst          whether that answer came from a standby ({@code meta.freshness.stale})
     * @param freshAgainAfterMs     from the fault to the first such 200 that was not stale (an active task answered)
     * @param notAnsweredAfterDown  lookups sent once it was down that got no 200 before the first that did
     */
    record Result(Long answeringAgainAfterMs, Boolean staleAtFirst, String servedByAtFirst, Long freshAgainAfterMs,
                  String servedByWhenFresh, long lookupsAfterDown, long notAnsweredAfterDown) {
    }

    /** {@code polls} in the order they were sent (one at a time, so also the order they were answered). */
    static Result summarize(List<Poll> polls, long faultAtMillis, long downAtMillis) {
        Poll first = null, fresh = null;
        long after = 0, failed = 0;
        for (Poll p : polls) {
            if (p.sentAtMillis() < downAtMillis) {
                continue;
            }
            after++;
            boolean ok = p.httpStatus() == 200;
            if (first == null && !ok) {
                failed++;
            }
            if (ok && first == null) {
                first = p;
            }
            if (ok && !p.stale() && fresh == null) {
                fresh = p;
            }
        }
        return new Result(first == null ? null : first.answeredAtMillis() - faultAtMillis, first == null ? null : first.stale(),
                first == null ? null : first.servedBy(), fresh == null ? null : fresh.answeredAtMillis() - faultAtMillis,
                fresh == null ? null : fresh.servedBy(), after, failed);
    }

    private AnsweringAgain() {
    }
}
