package io.streamhouse.ingest.audit;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.domain.event.AuditEvent;
import io.streamhouse.domain.event.AuditOutcome;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.security.Roles;
import io.streamhouse.security.testing.AuditEvents;
import io.streamhouse.security.testing.TestTokens;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Audit completeness for ingest (issue #19): a denied request of each kind — 401 without a token and with a bad one,
 * 403 on a JAX-RS method and on a path, 429 — leaves exactly one REQUEST_DENIED event on audit.events, and no event
 * carries the token. (Accepted ingest requests are not audited: their events are the record.)
 */
@QuarkusTest
class IngestAuditIT {
    private static final String RUN = Long.toString(System.nanoTime(), 36);

    record Expected(String subject, String resource, int status) {
        boolean matches(AuditEvent e) {
            return e.getSubject().equals(subject) && e.getAction() == AuditAction.REQUEST_DENIED && e.getResource().equals(resource);
        }
    }

    static RequestSpecification asToken(String token) {
        return given().header("Authorization", TestTokens.bearer(token)).contentType(ContentType.JSON);
    }

    @Test
    void everyDeniedRequestLeavesExactlyOneEvent() {
        String wrong = "test-audit-device-" + RUN;
        String throttled = "test-audit-throttled";
        List<String> tokens = new ArrayList<>();
        List<Expected> expected = new ArrayList<>();

        given().contentType(ContentType.JSON).body("{}").post("/v1/parcels/P-audit-" + RUN + "/scans").then().statusCode(401);
        expected.add(new Expected("anonymous", "POST /v1/parcels/P-audit-" + RUN + "/scans", 401));
        String expired = TestTokens.expired(Roles.DEVICE);
        tokens.add(expired);
        asToken(expired).body("{}").post("/v1/parcels/P-audit2-" + RUN + "/scans").then().statusCode(401);
        expected.add(new Expected("anonymous", "POST /v1/parcels/P-audit2-" + RUN + "/scans", 401));
        String wrongToken = TestTokens.of(wrong, Roles.PAYMENTS);
        tokens.add(wrongToken);
        asToken(wrongToken).body("{}").post("/v1/parcels/P-audit3-" + RUN + "/scans").then().statusCode(403);
        expected.add(new Expected(wrong, "POST /v1/parcels/P-audit3-" + RUN + "/scans", 403));
        asToken(wrongToken).get("/q/health").then().statusCode(403);
        expected.add(new Expected(wrong, "GET /q/health", 403));
        String throttledToken = TestTokens.of(throttled, Roles.DEVICE);
        tokens.add(throttledToken);
        asToken(throttledToken).body("{}").post("/v1/parcels/P-audit4-" + RUN + "/scans").then().statusCode(422);
        asToken(throttledToken).body("{}").post("/v1/parcels/P-audit5-" + RUN + "/scans").then().statusCode(429);
        expected.add(new Expected(throttled, "POST /v1/parcels/P-audit5-" + RUN + "/scans", 429));

        Set<String> subjects = Set.of(wrong, throttled);
        List<AuditEvent> all = AuditEvents.readUntil(SharedPlatform.get().bootstrapServers(),
                SharedPlatform.get().schemaRegistryUrl().toString(),
                read -> expected.stream().allMatch(x -> read.stream().anyMatch(x::matches)), Duration.ofSeconds(30));
        List<AuditEvent> ours = all.stream().filter(e -> subjects.contains(e.getSubject()) || e.getResource().contains(RUN)).toList();

        for (Expected x : expected) {
            List<AuditEvent> found = ours.stream().filter(x::matches).toList();
            assertThat(found).as("events for %s", x).hasSize(1);
            AuditEvent e = found.get(0);
            assertThat(e.getOutcome()).isEqualTo(AuditOutcome.DENIED);
            assertThat(e.getStatus()).as("status of %s", x).isEqualTo(x.status());
            assertThat(e.getService()).isEqualTo("streamhouse-ingest");
            assertThat(e.getClientAddress()).isNotBlank();
            assertThat(e.getReason()).isNotBlank();
        }
        assertThat(ours).as("no audit event besides the expected ones: %s", ours).hasSize(expected.size());
        for (AuditEvent e : all) {
            for (String token : tokens) {
                assertThat(e.toString()).as("an audit event with a token").doesNotContain(token);
            }
        }
    }
}
