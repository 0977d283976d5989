package io.streamhouse.ingest.authorize;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.runtime.StartupEvent;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.ingest.IngestConfig;
import io.streamhouse.ingest.http.EventRequests;
import io.streamhouse.ingest.intake.Submission;
import io.streamhouse.ingest.kafka.EventLog;
import io.streamhouse.ingest.transactions.CardTokenizer;
import io.streamhouse.ingest.transactions.TransactionRequestParser;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

/**
 * Not ready until the authorize path's own code has run over synthetic requests in this JVM, so that the first real
 * requests after a deploy or a restart meet compiled code rather than the interpreter and a JIT compiler busy on the
 * same cores (docs/benchmarks.md, "first minute"): each request's JSON body read and validated, its card number
 * tokenized, the request fingerprinted and encoded as Avro under its registered schema, an answer written as JSON.
 * Nothing is sent: no record reaches Kafka, no decision is awaited. It starts with the app and takes
 * {@code streamhouse.warm-up.requests} (0: none) or {@code streamhouse.warm-up.max-duration}, whichever ends first;
 * one that fails is logged and does not keep the app unready (it only makes the first minute slower).
 */
@Readiness
@ApplicationScoped
public class AuthorizeWarmUp implements HealthCheck {
    private static final Logger LOG = Logger.getLogger(AuthorizeWarmUp.class);
    private static final List<String[]> MERCHANTS = List.of(new String[]{"warm-up-grocer", "Warm-up grocer", "5411", "NL"},
            new String[]{"warm-up-fuel", "Warm-up fuel", "5541", "BE"}, new String[]{"warm-up-casino", "Warm-up casino", "7995", "MT"});

    /** What a warm-up did: requests taken through, bytes of Avro they encoded to, how long it took. */
    public record Result(int requests, long encodedBytes, Duration took) {
    }

    private final int requests;
    private final Duration maxDuration;
    private final EventRequests parsing;
    private final TransactionRequestParser parser;
    private final EventLog log;
    private final ObjectMapper json;
    private volatile HealthCheckResponse state;

    @Inject
    public AuthorizeWarmUp(IngestConfig config, EventRequests parsing, EventLog log, ObjectMapper json) {
        this(config.warmUp().requests(), config.warmUp().maxDuration(), parsing,
                new TransactionRequestParser(new CardTokenizer(config.tokenization().key())), log, json);
    }

    AuthorizeWarmUp(int requests, Duration maxDuration, EventRequests parsing, TransactionRequestParser parser, EventLog log,
                    ObjectMapper json) {
        this.requests = requests;
        this.maxDuration = maxDuration;
        this.parsing = parsing;
        this.parser = parser;
        this.log = log;
        this.json = json;
        this.state = requests > 0 ? response(false).withData("state", "waiting").build()
                : response(true).withData("state", "off").build();
    }

    void onStart(@Observes StartupEvent event) {
        if (requests > 0) {
            Thread thread = new Thread(this::warmUp, "authorize-warm-up");
            thread.setDaemon(true);
            thread.start();
        }
    }

    void warmUp() {
        state = response(false).withData("state", "running").build();
        try {
            Result result = run(requests, maxDuration);
            LOG.infof("authorize warm-up: %d synthetic requests taken through in %d ms", result.requests(), result.took().toMillis());
            state = response(true).withData("state", "done").withData("requests", result.requests())
                    .withData("millis", result.took().toMillis()).build();
        } catch (RuntimeException | JsonProcessingException e) {
            LOG.warn("authorize warm-up failed; the first requests will be slower", e);
            state = response(true).withData("state", "failed").withData("error", String.valueOf(e)).build();
        }
    }

    /** Takes up to {@code count} synthetic requests through the path, stopping early once {@code budget} has passed. */
    Result run(int count, Duration budget) throws JsonProcessingException {
        long started = System.nanoTime();
        long deadline = started + budget.toNanos();
        long bytes = 0;
        int done = 0;
        Instant now = Instant.now();
        while (done < count && System.nanoTime() < deadline) {
            Submission<TransactionAuthorizationRequested> submission =
                    AuthorizeResource.submission(parsing, parser, body(done, now), "warm-up");
            String fingerprint = HexFormat.of().formatHex(submission.fingerprint());
            bytes += log.encode(Topics.TRANSACTION_REQUESTS, submission.event()).length;
            bytes += json.writeValueAsBytes(AuthorizeAnswer.fallback(submission.id(), 1500, fingerprint.length(),
                    submission.eventId())).length;
            done++;
        }
        return new Result(done, bytes, Duration.ofNanos(System.nanoTime() - started));
    }

    /** The JSON body of synthetic request {@code i}, as a payments service sends one. */
    String body(int i, Instant at) throws JsonProcessingException {
        String[] merchant = MERCHANTS.get(i % MERCHANTS.size());
        ObjectNode body = json.createObjectNode();
        body.put("transactionId", "warm-up-" + i);
        body.put("occurredAt", at.toString());
        body.putObject("card").put("number", cardNumber(i % 1000));
        body.put("customerId", "warm-up-c-" + (i % 1000));
        body.putObject("merchant").put("id", merchant[0]).put("name", merchant[1]).put("mcc", merchant[2]).put("country", merchant[3]);
        body.put("amount", (1 + i % 900) + "." + (10 + i % 90));
        body.put("currency", i % 11 == 0 ? "USD" : "EUR");
        body.put("channel", i % 3 == 0 ? "CONTACTLESS" : "ECOMMERCE");
        return json.writeValueAsString(body);
    }

    /** A Luhn-valid 16-digit test number in the 4000 00.. range. */
    static String cardNumber(int index) {
        String digits = "400000" + String.format("%09d", index);
        int sum = 0;
        for (int k = 0; k < digits.length(); k++) {
            int d = digits.charAt(digits.length() - 1 - k) - '0';
            if (k % 2 == 0) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
        }
        return digits + ((10 - sum % 10) % 10);
    }

    private static HealthCheckResponseBuilder response(boolean up) {
        return HealthCheckResponse.named("authorize-warm-up").status(up);
    }

    @Override
    public HealthCheckResponse call() {
        return state;
    }
}
