package io.streamhouse.api.streams;

import io.opentelemetry.api.OpenTelemetry;
import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.topic.TopicSerdes;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class DecisionWarmUpTest {
    private static final Function<TopicSerdes, Topology> APP =
            serdes -> StreamsWiring.decisionApp(serdes, Clock.systemUTC(), OpenTelemetry.noop(), DecisionTopology.Storage.IN_MEMORY);

    @Test
    void everySyntheticRequestIsDecidedAndNoStateIsLeftBehind() throws Exception {
        Path tmp = DecisionWarmUp.scratch();
        Set<Path> before = warmUpDirs(tmp);

        DecisionWarmUp.Result result = DecisionWarmUp.run(APP, 1_000, Duration.ofMinutes(1));

        assertThat(result.requests()).isEqualTo(1_000);
        // one decision per request, a repeated one answered again from the decided store
        assertThat(result.written()).isEqualTo(1_000);
        assertThat(warmUpDirs(tmp)).isEqualTo(before);
    }

    @Test
    void theRequestsRepeatAsDocumentedAndNeverConflict() {
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(DecisionWarmUp.request(96, t0)).as("the 97th repeats the 96th").isEqualTo(DecisionWarmUp.request(95, t0));
        var byId = new java.util.HashMap<String, Object>();
        for (int i = 0; i < 5_000; i++) {
            var r = DecisionWarmUp.request(i, t0);
            Object earlier = byId.putIfAbsent(r.getTransactionId(), r);
            assertThat(earlier == null || earlier.equals(r)).as(r.getTransactionId()).isTrue();
        }
    }

    @Test
    void aBudgetStopsTheWarmUpEarly() {
        assertThat(DecisionWarmUp.run(APP, 1_000_000, Duration.ofMillis(300)).requests()).isLessThan(1_000_000);
    }

    @Test
    void theAppIsNotReadyUntilTheWarmUpRanAndReadyWithoutOne() {
        var readiness = new DecisionWarmUpReadiness(200, Duration.ofMinutes(1), OpenTelemetry.noop());
        assertThat(readiness.call().getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);

        readiness.warmUp();

        HealthCheckResponse after = readiness.call();
        assertThat(after.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(after.getData().orElseThrow()).containsEntry("state", "done").containsEntry("requests", 200L);
        assertThat(new DecisionWarmUpReadiness(0, Duration.ofMinutes(1), OpenTelemetry.noop()).call().getStatus())
                .isEqualTo(HealthCheckResponse.Status.UP);
    }

    private static Set<Path> warmUpDirs(Path tmp) throws Exception {
        try (Stream<Path> files = Files.list(tmp)) {
            return new HashSet<>(files.filter(p -> p.getFileName().toString().startsWith("streamhouse-decision-warm-up")).toList());
        }
    }
}
