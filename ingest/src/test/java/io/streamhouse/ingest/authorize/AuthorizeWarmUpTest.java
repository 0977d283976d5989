package io.streamhouse.ingest.authorize;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import io.streamhouse.ingest.http.EventRequests;
import io.streamhouse.ingest.kafka.EventLog;
import io.streamhouse.ingest.transactions.CardTokenizer;
import io.streamhouse.ingest.transactions.TransactionRequestParser;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class AuthorizeWarmUpTest {
    @Inject
    EventRequests parsing;
    @Inject
    EventLog log;
    @Inject
    ObjectMapper json;
    @Inject
    @Readiness
    AuthorizeWarmUp configured;

    private AuthorizeWarmUp warmUp(int requests) {
        return new AuthorizeWarmUp(requests, Duration.ofMinutes(1), parsing,
                new TransactionRequestParser(new CardTokenizer("warm-up-test-key-0123456789")), log, json);
    }

    @Test
    void everySyntheticRequestIsValidAndEncodedUnderTheRegisteredSchema() throws Exception {
        AuthorizeWarmUp.Result result = warmUp(500).run(500, Duration.ofMinutes(1));

        assertThat(result.requests()).isEqualTo(500);
        // Avro (about a hundred bytes each, with the registry's five-byte header) plus the JSON answer
        assertThat(result.encodedBytes()).isGreaterThan(500L * 200);
    }

    @Test
    void aBudgetStopsTheWarmUpEarly() throws Exception {
        assertThat(warmUp(1).run(10_000_000, Duration.ofMillis(200)).requests()).isLessThan(10_000_000);
    }

    @Test
    void theAppIsNotReadyUntilTheWarmUpRanAndReadyWithoutOne() {
        AuthorizeWarmUp warmUp = warmUp(200);
        assertThat(warmUp.call().getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);

        warmUp.warmUp();

        assertThat(warmUp.call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(warmUp.call().getData().orElseThrow()).containsEntry("state", "done").containsEntry("requests", 200L);
        assertThat(configured.call().getData().orElseThrow()).as("the test profile sets no warm-up").containsEntry("state", "off");
    }

    @Test
    void theSyntheticCardNumbersPassTheLuhnCheck() {
        for (int i = 0; i < 1000; i += 37) {
            assertThat(CardTokenizer.isValidPan(AuthorizeWarmUp.cardNumber(i))).as(AuthorizeWarmUp.cardNumber(i)).isTrue();
        }
    }
}
