package io.streamhouse.drills;

import io.streamhouse.replay.ReplayCli;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DrillChecksTest {

    private static DrillChecks.Answer decided(String id, String outcome) {
        return new DrillChecks.Answer(id, 200, outcome, true, 0, 1);
    }

    private static DrillChecks.Answer fallback(String id) {
        return new DrillChecks.Answer(id, 200, "REVIEW", false, 0, 1500);
    }

    private static DrillChecks.Answer refused(String id) {
        return new DrillChecks.Answer(id, 503, null, false, 0, 10_000);
    }

    private static DrillChecks.Result check(List<DrillChecks.Answer> answers, Map<String, List<String>> decisions) {
        return DrillChecks.check(answers.stream().map(DrillChecks.Answer::transactionId).toList(), answers, decisions);
    }

    @Test
    void passesWhenEveryRequestHasExactlyOneMatchingDecision() {
        var result = check(List.of(decided("t1", "ALLOW"), fallback("t2")),
                Map.of("t1", List.of("ALLOW"), "t2", List.of("BLOCK")));

        assertThat(result.passed()).isTrue();
        assertThat(result.fallbacks()).isEqualTo(1);
        assertThat(result.decided()).isEqualTo(1);
    }

    @Test
    void catchesALostAndAConflictingDecisionAndCountsIdenticalDuplicates() {
        var result = check(List.of(decided("lost", "ALLOW"), decided("twice", "ALLOW"), decided("dup", "BLOCK")),
                Map.of("twice", List.of("ALLOW", "REVIEW"), "dup", List.of("BLOCK", "BLOCK"), "other", List.of("ALLOW")));

        assertThat(result.passed()).isFalse();
        assertThat(result.lost()).isEqualTo(1);
        assertThat(result.conflicting()).isEqualTo(1);
        assertThat(result.identicalDuplicates()).isEqualTo(1);
        assertThat(result.examples()).containsEntry("lost", List.of("lost"));
    }

    @Test
    void catchesADecidedAnswerUnlikeTheLogButNotAFallback() {
        var result = check(List.of(decided("t1", "ALLOW"), fallback("t2")),
                Map.of("t1", List.of("BLOCK"), "t2", List.of("ALLOW")));

        assertThat(result.answerMismatches()).isEqualTo(1);
        assertThat(result.passed()).isFalse();
    }

    @Test
    void aRequestWithoutAnAnswerFails() {
        var result = check(List.of(new DrillChecks.Answer("t1", 0, null, false, 0, 1)), Map.of("t1", List.of("ALLOW")));

        assertThat(result.requestErrors()).isEqualTo(1);
        assertThat(result.passed()).isFalse();
    }

    @Test
    void aSentRequestMissingFromTheAnswersFails() {
        var result = DrillChecks.check(List.of("t1", "t2"), List.of(decided("t1", "ALLOW")), Map.of("t1", List.of("ALLOW")));

        assertThat(result.sent()).isEqualTo(2);
        assertThat(result.requestErrors()).isEqualTo(1);
        assertThat(result.examples()).containsEntry("requestErrors", List.of("t2 (no answer)"));
        assertThat(result.passed()).isFalse();
    }

    @Test
    void aRefusedRequestIsAnErrorButOwesNoDecision() {
        var result = check(List.of(new DrillChecks.Answer("t1", 422, null, false, 0, 1)), Map.of());

        assertThat(result.requestErrors()).isEqualTo(1);
        assertThat(result.lost()).isZero();
        assertThat(result.passed()).isFalse();
    }

    @Test
    void aRequestRefusedWith503ToldTheClientAndMayBeDecidedOnce() {
        // During a broker restart ingest's publish times out: 503. t1's publish never landed, t2's did and the api decided it.
        var result = check(List.of(decided("t0", "ALLOW"), refused("t1"), refused("t2")),
                Map.of("t0", List.of("ALLOW"), "t2", List.of("REVIEW")));

        assertThat(result.passed()).isTrue();
        assertThat(result).extracting(DrillChecks.Result::refused, DrillChecks.Result::refusedDecided, DrillChecks.Result::requestErrors,
                DrillChecks.Result::lost).containsExactly(2L, 1L, 0L, 0L);
    }

    @Test
    void aRequestRefusedWith503NeverHasTwoDifferentOutcomes() {
        var result = check(List.of(refused("t1"), refused("t2")), Map.of("t1", List.of("ALLOW", "BLOCK"), "t2", List.of("BLOCK", "BLOCK")));

        assertThat(result.passed()).isFalse();
        assertThat(result.conflicting()).isEqualTo(1);
        assertThat(result.identicalDuplicates()).isEqualTo(1);
        assertThat(result.examples()).containsEntry("conflicting", List.of("t1 [ALLOW, BLOCK] (refused with 503)"));
    }

    @Test
    void anotherServerErrorIsNeitherADecisionNorARefusal() {
        var result = check(List.of(new DrillChecks.Answer("t1", 500, null, false, 0, 1), new DrillChecks.Answer("t2", -1, null, false, 0, 1)),
                Map.of("t1", List.of("ALLOW"), "t2", List.of("ALLOW")));

        assertThat(result.refused()).isZero();
        assertThat(result.requestErrors()).isEqualTo(2);
        assertThat(result.passed()).isFalse();
    }

    @Test
    void onlyAnAnsweredAuthorizeWithoutADecisionIsStillAwaited() {
        var answers = List.of(decided("t1", "ALLOW"), fallback("t2"), new DrillChecks.Answer("t3", 503, null, false, 0, 1),
                new DrillChecks.Answer("t4", 422, null, false, 0, 1));

        assertThat(DrillChecks.undecided(answers, Map.of("t1", List.of("ALLOW")))).isEqualTo(1);
        assertThat(DrillChecks.undecided(answers, Map.of("t1", List.of("ALLOW"), "t2", List.of("REVIEW")))).isZero();
    }

    @Test
    void findsRepeatedAlertIds() {
        assertThat(DrillChecks.repeated(List.of("a", "b", "a", "c", "b", "a"))).containsExactly("a", "b");
        assertThat(DrillChecks.repeated(List.of("a", "b"))).isEmpty();
    }

    @Test
    void refusesTargetsOffThisMachine() {
        Drill.requireLoopback("x", "127.0.0.1");
        Drill.requireLoopback("x", "[::1]");
        assertThatThrownBy(() -> Drill.requireLoopback("--ingest-url", "10.0.0.5")).isInstanceOf(ReplayCli.BadInput.class)
                .hasMessageContaining("--ingest-url is '10.0.0.5'");
        assertThat(Drill.bootstrapHosts("127.0.0.1:9092,PLAINTEXT://localhost:9093")).containsExactly("127.0.0.1", "localhost");
    }

    @Test
    void everyAcceptedAsynchronousEventIsOnItsTopicOnce() {
        var ok = DrillChecks.delivery(Map.of("e1", 202, "e2", 202, "e3", 503, "e4", 0), List.of("e1", "e2"));
        assertThat(ok.passed()).isTrue();
        assertThat(ok).extracting(DrillChecks.Delivery::accepted, DrillChecks.Delivery::failed).containsExactly(2L, 2L);

        var bad = DrillChecks.delivery(Map.of("e1", 202, "e2", 202, "e3", 400), List.of("e2", "e2"));
        assertThat(bad.passed()).isFalse();
        assertThat(bad).extracting(DrillChecks.Delivery::lost, DrillChecks.Delivery::duplicated, DrillChecks.Delivery::refused)
                .containsExactly(1L, 1L, 1L);
        assertThat(bad.examples()).containsExactly("lost e1", "2 times e2", "refused e3 (HTTP 400)");
    }

    @Test
    void theAsynchronousLoadIsTelemetryAndParcelScansOnly() {
        var events = AsyncLoad.events(7, 200);
        assertThat(events).hasSize(200);
        assertThat(events).extracting(e -> e.kind().name()).containsOnly("VEHICLE_TELEMETRY", "PARCEL_SCAN")
                .contains("VEHICLE_TELEMETRY", "PARCEL_SCAN");
        assertThat(AsyncLoad.events(7, 0)).isEmpty();
    }

    @Test
    void theChecksAlwaysWaitForTheApiGroupsThatWriteTheDecisions() {
        // kill-connect watches only the sink's group; its decision check must still wait for the api.
        assertThat(DrillChecks.quietGroups(List.of(), List.of("connect-lake"), List.of("streamhouse-api", "streamhouse-serving")))
                .containsExactly("connect-lake", "streamhouse-api", "streamhouse-serving");
        // restart-broker already watches them: no group twice.
        assertThat(DrillChecks.quietGroups(List.of(), List.of("streamhouse-api", "streamhouse-serving", "streamhouse-cep"),
                List.of("streamhouse-api", "streamhouse-serving")))
                .containsExactly("streamhouse-api", "streamhouse-serving", "streamhouse-cep");
    }

    @Test
    void theCepJobIsWaitedForFirstWhenItRunsForItsAlertsFeedServing() {
        // kill-connect on a busy machine: the CEP job still behind when the sink was back; its later alerts reached live
        // serving after the rebuild's cut (DIVERGENT). Upstream first: the api's lag is read after the job's last alerts.
        assertThat(DrillChecks.quietGroups(List.of("streamhouse-cep"), List.of("connect-lake"),
                List.of("streamhouse-api", "streamhouse-serving")))
                .containsExactly("streamhouse-cep", "connect-lake", "streamhouse-api", "streamhouse-serving");
        assertThat(DrillChecks.quietGroups(List.of("streamhouse-cep"), List.of("streamhouse-api", "streamhouse-serving", "streamhouse-cep"),
                List.of("streamhouse-api", "streamhouse-serving")))
                .containsExactly("streamhouse-cep", "streamhouse-api", "streamhouse-serving");
    }
}
