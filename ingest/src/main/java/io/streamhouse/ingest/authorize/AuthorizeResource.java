package io.streamhouse.ingest.authorize;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.IngestConfig;
import io.streamhouse.ingest.http.EventRequests;
import io.streamhouse.ingest.http.FieldError;
import io.streamhouse.ingest.http.ValidationException;
import io.streamhouse.ingest.intake.EventIntake;
import io.streamhouse.ingest.intake.Submission;
import io.streamhouse.ingest.transactions.CardTokenizer;
import io.streamhouse.ingest.transactions.TransactionRequestParser;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.Blocking;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * {@code POST /v1/transactions/authorize}: a payments service asks "allow this card payment?" and waits for the
 * answer. The request is validated and written to the log exactly as {@code POST /v1/transactions} writes it;
 * then the decision the decision topology makes for it is awaited from the decisions topic, up to a deadline
 * ({@code streamhouse.authorize.deadline}, or less with {@code ?deadlineMs=}). Past the deadline the answer is
 * an explicit fallback (REVIEW, reason {@code timeout}, {@code decided=false}); the request is not lost, and its
 * real decision is still made and recorded. How long the answers took is the histogram
 * {@code streamhouse_authorize_latency_seconds} on /q/metrics, by outcome ({@code decided} or {@code fallback}).
 */
@Path("/v1/transactions/authorize")
public class AuthorizeResource {
    private final EventRequests requests;
    private final EventIntake intake;
    private final DecisionWaiter waiter;
    private final TransactionRequestParser parser;
    private final Duration defaultDeadline;
    private final Duration maxDeadline;
    private final SecurityIdentity caller;
    private final Timer decided;
    private final Timer fallback;

    public AuthorizeResource(EventRequests requests, EventIntake intake, DecisionWaiter waiter, IngestConfig config,
                             SecurityIdentity caller, MeterRegistry registry) {
        this.requests = requests;
        this.caller = caller;
        this.intake = intake;
        this.waiter = waiter;
        this.parser = new TransactionRequestParser(new CardTokenizer(config.tokenization().key()));
        this.defaultDeadline = config.authorize().deadline();
        this.maxDeadline = config.authorize().maxDeadline();
        this.decided = latency(registry, "decided");
        this.fallback = latency(registry, "fallback");
    }

    /**
     * Runs on a worker thread only until the request is handed to the producer (parsing, tokenization and the Avro
     * encoding, and the producer's first metadata and schema look-ups, may block); the acknowledgement and the
     * decision are then awaited without holding any thread, so concurrent requests are bounded by the in-flight
     * limit rather than by the worker pool. The answer comes once the request is acknowledged and either its
     * decision is there or the deadline passed; the decision is awaited from before the write, so the two waits
     * overlap.
     */
    @POST
    @Blocking
    @RolesAllowed(Roles.PAYMENTS)
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public CompletionStage<Response> authorize(String raw, @QueryParam("deadlineMs") Long deadlineMs) throws JsonProcessingException {
        long started = System.nanoTime();
        Duration deadline = deadline(deadlineMs);
        Submission<TransactionAuthorizationRequested> parsed = requests.parseOne(raw, (item, path, recordedAt, fields) -> {
            var event = parser.parse(item, path, recordedAt, fields);
            if (event != null) {
                event.setSubmittedBy(caller.getPrincipal().getName());
            }
            return event == null ? null : new Submission<>(event.getTransactionId(), event.getCardToken(),
                    event.getEnvelope().getEventId(), "transactionId", event);
        });
        Submission<TransactionAuthorizationRequested> submission = waiter.replyPartition() < 0 ? parsed
                : parsed.withHeader(Decisions.REPLY_PARTITION_HEADER, Integer.toString(waiter.replyPartition()));
        String id = submission.id();
        String fingerprint = HexFormat.of().formatHex(submission.fingerprint());
        CompletableFuture<DecisionMatcher.Match> decision = waiter.await(id);
        CompletableFuture<?> written;
        try {
            written = intake.acceptWithinLimitAsync(Topics.TRANSACTION_REQUESTS, List.of(submission));
        } catch (RuntimeException notWritten) {
            waiter.forget(id, decision);
            throw notWritten;
        }
        var answer = new CompletableFuture<Response>();
        written.whenComplete((accepted, notWritten) -> {
            if (notWritten != null) {
                waiter.forget(id, decision);
                answer.completeExceptionally(notWritten);
                return;
            }
            long remaining = Math.max(0, deadline.toNanos() - (System.nanoTime() - started));
            // A copy: the waiter's future may be shared with a concurrent retry of the same transaction, whose own
            // deadline must not be cut short by this one.
            decision.copy().completeOnTimeout(null, remaining, TimeUnit.NANOSECONDS).whenComplete((d, failed) -> {
                if (failed != null) {
                    answer.completeExceptionally(new IllegalStateException("waiting for the decision of " + id + " failed", failed));
                } else if (d == null) {
                    waiter.forget(id, decision);
                    fallback.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                    answer.complete(Response.ok(AuthorizeAnswer.fallback(id, deadline.toMillis(), waited(started),
                            submission.eventId())).build());
                } else if (!d.isFor(fingerprint)) {
                    // The decision topology dead-lettered this request: its transaction id was decided for another.
                    answer.completeExceptionally(new AlreadyDecidedException(id));
                } else {
                    decided.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                    answer.complete(Response.ok(AuthorizeAnswer.of(d.decision(), waited(started), submission.eventId())).build());
                }
            });
        });
        return answer;
    }

    private static Timer latency(MeterRegistry registry, String outcome) {
        return Timer.builder("streamhouse.authorize.latency")
                .description("From an authorize request's arrival to its answer (the decision, or the fallback at the deadline)")
                .tag("outcome", outcome)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
    }

    private Duration deadline(Long deadlineMs) {
        if (deadlineMs == null) {
            return defaultDeadline;
        }
        if (deadlineMs < 1 || deadlineMs > maxDeadline.toMillis()) {
            throw new ValidationException(List.of(new FieldError("deadlineMs",
                    "must be between 1 and " + maxDeadline.toMillis() + " milliseconds")));
        }
        return Duration.ofMillis(deadlineMs);
    }

    private static long waited(long started) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }
}
