package io.streamhouse.drills;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The drill's checks, pure functions over what the client saw and what the log holds, so they can be tested alone.
 * Every sent authorize must get an answer the client can act on: a decision (200, decided or the REVIEW fallback) or
 * an explicit refusal (503 "Log unavailable": ingest's publish was not acknowledged in time, as during a broker
 * restart). A decided one must have exactly one outcome on the decisions topic: none lost, never two different
 * outcomes (identical duplicates are allowed and counted); every answer that was not a fallback must equal that
 * outcome. A refused one owes no decision, but has at most one outcome: its publish may still have landed, and the
 * api then decides it once, like any other transaction.
 */
final class DrillChecks {

    /** The explicit refusal: ingest could not get the transaction acknowledged by the log in time and said so. */
    static final int REFUSED = 503;

    /** What the client got for one authorize: the HTTP status (0: no answer), the outcome, and whether it was decided. */
    record Answer(String transactionId, int httpStatus, String outcome, boolean decided, long sentAtMillis, long answeredAtMillis) {
        boolean fallback() {
            return httpStatus == 200 && !decided;
        }

        boolean refused() {
            return httpStatus == REFUSED;
        }
    }

    /**
     * @param refused        answered 503: the client was told, no decision owed
     * @param refusedDecided of those, the ones decided anyway (their publish landed): one outcome each, never two
     * @param requestErrors  neither a decision nor a refusal: no answer (no answer at all included), unreadable, a
     *                       4xx (the drill sent what ingest cannot take) or another 5xx
     * @param examples       at most a few transaction ids per failed check, for the report
     */
    record Result(long sent, long answered, long decided, long fallbacks, long refused, long refusedDecided, long requestErrors,
                  long lost, long conflicting, long identicalDuplicates, long answerMismatches, Map<String, List<String>> examples) {
        boolean passed() {
            return requestErrors == 0 && lost == 0 && conflicting == 0 && answerMismatches == 0;
        }
    }

    /**
     * The groups to wait for before the checks, upstream first: the CEP job's when it runs (its alerts are the serving
     * projections' input, so the rebuild's cut must not be taken while it is still writing them), the scenario's
     * watched groups, and always the api's, whose decision topology writes the decisions the checks read. A drill that
     * watches only the faulted component's group (the lake's sink for kill-connect) would otherwise read the decisions
     * topic while the api is still behind and count the undecided requests as lost, or cut the serving rebuild while
     * live serving still had alerts to fold in (a DIVERGENT rebuild on a busy machine).
     */
    static List<String> quietGroups(List<String> upstream, List<String> watched, List<String> decisionGroups) {
        Set<String> all = new LinkedHashSet<>(upstream);
        all.addAll(watched);
        all.addAll(decisionGroups);
        return List.copyOf(all);
    }

    private static final int EXAMPLES = 5;

    /**
     * Authorizes answered 200 whose outcome is not on the log yet: the decisions the checks must still wait for. The
     * groups' lag alone cannot say: the quiet bound leaves a few records per group, and a partition the api never
     * committed on before a kill has no lag at all. A refused (503) request owes no decision and is not waited for
     * (one that lands later cannot be told from one that never will); nor is one without an answer, which fails the
     * drill anyway. A 200 that never gets its decision holds the wait until its timeout, then counts as lost.
     */
    static long undecided(Collection<Answer> answers, Map<String, List<String>> decisions) {
        return answers.stream().filter(a -> a.httpStatus() == 200 && decisions.getOrDefault(a.transactionId(), List.of()).isEmpty()).count();
    }

    /**
     * @param sent      the transaction ids of every authorize sent; one without an answer counts as a request error
     * @param answers   what the client got, by answer (ids not sent are ignored)
     * @param decisions the outcomes on the decisions topic, by transaction id, in log order (ids not sent are ignored)
     */
    static Result check(Collection<String> sent, Collection<Answer> answers, Map<String, List<String>> decisions) {
        Map<String, Answer> byId = new HashMap<>();
        answers.forEach(a -> byId.put(a.transactionId(), a));
        long answered = 0, decided = 0, fallbacks = 0, refused = 0, refusedDecided = 0, errors = 0, lost = 0, conflicting = 0,
                duplicates = 0, mismatches = 0;
        Map<String, List<String>> examples = new HashMap<>();
        for (String id : new LinkedHashSet<>(sent)) {
            Answer a = byId.getOrDefault(id, new Answer(id, 0, null, false, 0, 0));
            List<String> onLog = decisions.getOrDefault(id, List.of());
            Set<String> distinct = new LinkedHashSet<>(onLog);
            if (distinct.size() > 1) {
                conflicting++;
                example(examples, "conflicting", id + " " + onLog + (a.refused() ? " (refused with 503)" : ""));
            } else if (onLog.size() > 1) {
                duplicates++;
            }
            if (a.refused()) {
                refused++;
                if (!onLog.isEmpty()) {
                    refusedDecided++;
                }
                continue; // the client was told: no decision owed, and at most one outcome (checked above)
            }
            if (a.httpStatus() != 200) {
                errors++;
                example(examples, "requestErrors", id + (a.httpStatus() == 0 ? " (no answer)" : " (HTTP " + a.httpStatus() + ")"));
                if (a.httpStatus() >= 400 && a.httpStatus() < 500) {
                    continue; // refused by ingest's validation: never recorded, so no decision is owed (the error itself fails the drill)
                }
            } else {
                answered++;
                if (a.decided()) {
                    decided++;
                } else {
                    fallbacks++;
                }
            }
            if (onLog.isEmpty()) {
                lost++;
                example(examples, "lost", id);
                continue;
            }
            if (a.httpStatus() == 200 && a.decided() && !distinct.contains(a.outcome())) {
                mismatches++;
                example(examples, "answerMismatches", id + " answered " + a.outcome() + ", log " + onLog);
            }
        }
        return new Result(new LinkedHashSet<>(sent).size(), answered, decided, fallbacks, refused, refusedDecided, errors, lost,
                conflicting, duplicates, mismatches, examples);
    }

    /**
     * The asynchronous traffic (telemetry, parcel scans): ingest answers 202 once the event is on its topic, so every
     * accepted event must be there, once. A refusal (4xx) means the drill sent what ingest cannot take and fails it;
     * no answer or a 5xx told the client, which may send again, so it is counted but owes nothing.
     */
    record Delivery(long sent, long accepted, long refused, long failed, long lost, long duplicated, List<String> examples) {
        boolean passed() {
            return lost == 0 && duplicated == 0 && refused == 0;
        }
    }

    /**
     * @param statusById the HTTP status each sent event got (0: no answer), by event id
     * @param onLog      the sent events' ids as found on their topics, one entry per record
     */
    static Delivery delivery(Map<String, Integer> statusById, Collection<String> onLog) {
        Map<String, Integer> counts = new HashMap<>();
        onLog.forEach(id -> counts.merge(id, 1, Integer::sum));
        long accepted = 0, refused = 0, failed = 0, lost = 0, duplicated = 0;
        List<String> examples = new ArrayList<>();
        for (var e : new java.util.TreeMap<>(statusById).entrySet()) {
            int status = e.getValue();
            if (status >= 200 && status < 300) {
                accepted++;
                int n = counts.getOrDefault(e.getKey(), 0);
                if (n == 0) {
                    lost++;
                    if (examples.size() < EXAMPLES) {
                        examples.add("lost " + e.getKey());
                    }
                } else if (n > 1) {
                    duplicated++;
                    if (examples.size() < EXAMPLES) {
                        examples.add(n + " times " + e.getKey());
                    }
                }
            } else if (status >= 400 && status < 500) {
                refused++;
                if (examples.size() < EXAMPLES) {
                    examples.add("refused " + e.getKey() + " (HTTP " + status + ")");
                }
            } else {
                failed++;
            }
        }
        return new Delivery(statusById.size(), accepted, refused, failed, lost, duplicated, examples);
    }

    /** The ids that occur more than once. */
    static List<String> repeated(Iterable<String> ids) {
        Map<String, Integer> counts = new HashMap<>();
        ids.forEach(id -> counts.merge(id, 1, Integer::sum));
        List<String> out = new ArrayList<>();
        counts.forEach((id, n) -> {
            if (n > 1) {
                out.add(id);
            }
        });
        out.sort(null);
        return out;
    }

    private static void example(Map<String, List<String>> examples, String check, String text) {
        List<String> list = examples.computeIfAbsent(check, k -> new ArrayList<>());
        if (list.size() < EXAMPLES) {
            list.add(text);
        }
    }

    private DrillChecks() {
    }
}
