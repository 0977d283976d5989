package io.streamhouse.replay;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The drill's checks, pure functions over what the client saw and what the log holds, so they can be tested alone.
 * Every sent authorize must have exactly one outcome on the decisions topic: none lost, never two different outcomes
 * (identical duplicates are allowed and counted); every answer that was not a fallback must equal that outcome.
 */
final class DrillChecks {

    /** What the client got for one authorize: the HTTP status (0: no answer), the outcome, and whether it was decided. */
    record Answer(String transactionId, int httpStatus, String outcome, boolean decided, long sentAtMillis, long answeredAtMillis) {
        boolean fallback() {
            return httpStatus == 200 && !decided;
        }
    }

    /** @param examples at most a few transaction ids per failed check, for the report */
    record Result(long sent, long answered, long decided, long fallbacks, long requestErrors, long lost, long conflicting,
                  long identicalDuplicates, long answerMismatches, Map<String, List<String>> examples) {
        boolean passed() {
            return requestErrors == 0 && lost == 0 && conflicting == 0 && answerMismatches == 0;
        }
    }

    /**
     * The groups to wait for before the checks: the scenario's watched groups and always the api's, whose decision
     * topology writes the decisions the checks read. A drill that watches only the faulted component's group (the
     * lake's sink for kill-connect, the CEP job for kill-cep) would otherwise read the decisions topic while the api
     * is still behind and count the undecided requests as lost.
     */
    static List<String> quietGroups(List<String> watched, List<String> decisionGroups) {
        Set<String> all = new LinkedHashSet<>(watched);
        all.addAll(decisionGroups);
        return List.copyOf(all);
    }

    private static final int EXAMPLES = 5;

    /**
     * Authorizes answered 200 whose outcome is not on the log yet: the decisions the checks must still wait for. The
     * groups' lag alone cannot say: the quiet bound leaves a few records per group, and a partition the api never
     * committed on before a kill has no lag at all.
     */
    static long undecided(Collection<Answer> answers, Map<String, List<String>> decisions) {
        return answers.stream().filter(a -> a.httpStatus() == 200 && decisions.getOrDefault(a.transactionId(), List.of()).isEmpty()).count();
    }

    /** @param decisions the outcomes on the decisions topic, by transaction id, in log order (ids not sent are ignored) */
    static Result check(Collection<Answer> answers, Map<String, List<String>> decisions) {
        long answered = 0, decided = 0, fallbacks = 0, errors = 0, lost = 0, conflicting = 0, duplicates = 0, mismatches = 0;
        Map<String, List<String>> examples = new HashMap<>();
        for (Answer a : answers) {
            if (a.httpStatus() != 200) {
                errors++;
                example(examples, "requestErrors", a.transactionId() + " (HTTP " + a.httpStatus() + ")");
                if (a.httpStatus() >= 400 && a.httpStatus() < 500) {
                    continue; // refused by ingest: never recorded, so no decision is owed (the error itself fails the drill)
                }
            } else {
                answered++;
                if (a.decided()) {
                    decided++;
                } else {
                    fallbacks++;
                }
            }
            List<String> onLog = decisions.getOrDefault(a.transactionId(), List.of());
            if (onLog.isEmpty()) {
                lost++;
                example(examples, "lost", a.transactionId());
                continue;
            }
            Set<String> distinct = new LinkedHashSet<>(onLog);
            if (distinct.size() > 1) {
                conflicting++;
                example(examples, "conflicting", a.transactionId() + " " + onLog);
            } else if (onLog.size() > 1) {
                duplicates++;
            }
            if (a.httpStatus() == 200 && a.decided() && !distinct.contains(a.outcome())) {
                mismatches++;
                example(examples, "answerMismatches", a.transactionId() + " answered " + a.outcome() + ", log " + onLog);
            }
        }
        return new Result(answers.size(), answered, decided, fallbacks, errors, lost, conflicting, duplicates, mismatches, examples);
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
