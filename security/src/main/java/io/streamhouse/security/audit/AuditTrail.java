package io.streamhouse.security.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.domain.event.AuditEvent;
import io.streamhouse.domain.event.AuditOutcome;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.topic.Topics;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;
import org.jboss.logging.Logger;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Writes one {@link AuditEvent} per audited action to {@code audit.events}, through SmallRye Reactive Messaging's Kafka
 * connector (channel {@value #CHANNEL}; the apps' {@code mp.messaging.outgoing.audit-events.*} configure it).
 *
 * <p>Guarantees: a write (rule change, review outcome) answers only once its event is acknowledged by the broker
 * (acks=all), within {@link #WRITE_TIMEOUT}; otherwise the caller gets 503 and the event is logged in full at ERROR. A
 * read or a denied request is never held up: its event is sent asynchronously, and one that cannot be written is
 * logged in full at ERROR and counted ({@link #lost()}). Every text passes {@link Redaction} first.
 */
@ApplicationScoped
public class AuditTrail {
    public static final String CHANNEL = "audit-events";
    /** How long a write waits for its audit event (the producer's delivery timeout is shorter). */
    public static final Duration WRITE_TIMEOUT = Duration.ofSeconds(15);
    public static final String ANONYMOUS = "anonymous";
    /** Longest value of a detail; a longer one is cut ({@link Redaction#clean(String, int)}). */
    public static final int DETAIL_LENGTH = 200;
    private static final Logger LOG = Logger.getLogger(AuditTrail.class);

    /** Who and from where: the verified identity (or anonymous) and the connection. */
    public record Caller(String subject, List<String> roles, String clientAddress, String request) {
        String key() {
            return subject.equals(ANONYMOUS) ? ANONYMOUS + "@" + (clientAddress == null ? "unknown" : clientAddress) : subject;
        }
    }

    /** What and with what outcome; texts are redacted when the event is built. */
    public record Entry(AuditAction action, String resourceType, String resource, Map<String, String> details,
                        String channel, AuditOutcome outcome, Integer status, String reason) {
    }

    /** The audit event of a write could not be written: the caller must not be told the write is done and audited. */
    public static final class Unaudited extends RuntimeException {
        Unaudited(String message, Throwable cause) {
            super(message, cause);
        }
    }

    @Inject
    @Channel(CHANNEL)
    @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 4096)
    Emitter<AuditEvent> emitter;

    @Inject
    CurrentIdentityAssociation identities;

    @Inject
    CurrentVertxRequest requests;

    @ConfigProperty(name = "quarkus.application.name")
    String service;

    private final String instance = instanceName();
    private final AtomicLong lost = new AtomicLong();
    private final Clock clock = Clock.systemUTC();

    /** Audit events that could not be written since start (each was logged in full at ERROR). */
    public long lost() {
        return lost.get();
    }

    /**
     * Runs a JAX-RS call and audits it once with the status it answered (2xx/3xx SUCCESS, 401/403/429 DENIED, else
     * FAILURE with the problem's detail). A write waits for its event and answers 503 if it cannot be written.
     */
    public Response http(AuditAction action, String resourceType, String resource, Map<String, String> details, boolean write,
                         Supplier<Response> call) {
        Caller caller = currentCaller();
        Response response;
        try {
            response = call.get();
        } catch (RuntimeException e) {
            record(caller, new Entry(action, resourceType, resource, details, "http", AuditOutcome.FAILURE, 500,
                    e.getClass().getSimpleName()), false);
            throw e;
        }
        int status = response.getStatus();
        Entry entry = new Entry(action, resourceType, resource, details, "http", outcomeOf(status), status,
                status < 400 ? null : detailOf(response.getEntity()));
        try {
            record(caller, entry, write);
            return response;
        } catch (Unaudited e) {
            return Response.status(503).type("application/problem+json").header("Retry-After", "5")
                    .entity(io.streamhouse.security.http.ProblemBodies.json(503, "Audit unavailable", e.getMessage())).build();
        }
    }

    /** A request refused with 401, 403 or 429 before (or instead of) the resource: audited, never waited for. */
    public void denied(RoutingContext context, SecurityIdentity identity, int status, String reason) {
        denied(callerOf(context, identity), status, reason);
    }

    /** A denial answered inside JAX-RS (an exception mapper): the current request and identity. */
    public void denied(int status, String reason) {
        denied(currentCaller(), status, reason);
    }

    private void denied(Caller caller, int status, String reason) {
        record(caller, new Entry(AuditAction.REQUEST_DENIED, "route", caller.request(), Map.of(), "http",
                AuditOutcome.DENIED, status, reason), false);
    }

    /**
     * Writes one event. {@code write}: waits until the broker acknowledged it and throws {@link Unaudited} if it did
     * not within {@link #WRITE_TIMEOUT}; otherwise returns at once and a failure is logged and counted.
     */
    public void record(Caller caller, Entry entry, boolean write) {
        AuditEvent event = event(caller, entry);
        CompletableFuture<Void> acked = send(event);
        if (write) {
            try {
                acked.get(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw unaudited(event, e);
            } catch (Exception e) {
                throw unaudited(event, e);
            }
        } else {
            acked.whenComplete((ok, failure) -> {
                if (failure != null) {
                    long n = lost.incrementAndGet();
                    LOG.errorf("AUDIT EVENT NOT WRITTEN to %s (%d lost since start): %s; the event: %s",
                            Topics.AUDIT_EVENTS.name(), n, failure.getMessage(), event);
                }
            });
        }
    }

    private Unaudited unaudited(AuditEvent event, Exception e) {
        long n = lost.incrementAndGet();
        Throwable cause = e.getCause() == null ? e : e.getCause();
        LOG.errorf("AUDIT EVENT NOT WRITTEN to %s for a write (%d lost since start), the caller gets 503: %s; the event: %s",
                Topics.AUDIT_EVENTS.name(), n, cause, event);
        return new Unaudited("the action's audit event could not be written to " + Topics.AUDIT_EVENTS.name()
                + " within " + WRITE_TIMEOUT.toSeconds() + " s; the action may have been applied: check before retrying", cause);
    }

    private CompletableFuture<Void> send(AuditEvent event) {
        CompletableFuture<Void> acked = new CompletableFuture<>();
        try {
            emitter.send(Message.of(event,
                    Metadata.of(OutgoingKafkaRecordMetadata.<String>builder().withKey(event.getEnvelope().getKey()).build()),
                    () -> {
                        acked.complete(null);
                        return CompletableFuture.completedFuture(null);
                    },
                    failure -> {
                        acked.completeExceptionally(failure);
                        return CompletableFuture.completedFuture(null);
                    }));
        } catch (RuntimeException e) {
            acked.completeExceptionally(e);
        }
        return acked;
    }

    AuditEvent event(Caller caller, Entry entry) {
        var now = clock.instant();
        Map<String, String> details = new LinkedHashMap<>();
        entry.details().forEach((k, v) -> details.put(k, Redaction.clean(v, DETAIL_LENGTH)));
        return AuditEvent.newBuilder()
                .setEnvelope(Envelopes.create(UUID.randomUUID().toString(), Redaction.clean(caller.key(), 200), now, now,
                        service, EventTypes.versionOf(AuditEvent.class), null))
                .setSubject(Redaction.clean(caller.subject(), 200)).setRoles(caller.roles())
                .setAction(entry.action()).setResourceType(entry.resourceType())
                .setResource(Redaction.clean(entry.resource() == null ? "" : entry.resource()))
                .setDetails(details).setChannel(entry.channel())
                .setClientAddress(caller.clientAddress()).setService(service).setInstance(instance)
                .setRequest(Redaction.clean(caller.request(), 300))
                .setOutcome(entry.outcome()).setStatus(entry.status()).setReason(Redaction.clean(entry.reason()))
                .build();
    }

    /** The caller of the request being served (JAX-RS, an MCP tool): the current identity and Vert.x request. */
    public Caller currentCaller() {
        RoutingContext context = null;
        try {
            context = requests.getCurrent();
        } catch (ContextNotActiveException e) {
            // an MCP tool may run outside the HTTP request's context: who is still known, from where not
        }
        SecurityIdentity identity = null;
        try {
            identity = identities.getIdentity();
        } catch (ContextNotActiveException e) {
            // no identity: recorded as anonymous
        }
        return callerOf(context, identity);
    }

    static Caller callerOf(RoutingContext context, SecurityIdentity identity) {
        boolean known = identity != null && !identity.isAnonymous();
        String address = null;
        String request = null;
        if (context != null) {
            var remote = context.request().remoteAddress();
            address = remote == null ? null : remote.hostAddress();
            request = context.request().method().name() + " " + context.normalizedPath();
        }
        return new Caller(known ? identity.getPrincipal().getName() : ANONYMOUS,
                known ? identity.getRoles().stream().sorted().toList() : List.of(), address, request);
    }

    static AuditOutcome outcomeOf(int status) {
        if (status == 401 || status == 403 || status == 429) {
            return AuditOutcome.DENIED;
        }
        return status < 400 ? AuditOutcome.SUCCESS : AuditOutcome.FAILURE;
    }

    /** The {@code detail} of a problem document answered as a map or a JSON tree; else nothing. */
    static String detailOf(Object entity) {
        if (entity instanceof Map<?, ?> map && map.get("detail") != null) {
            return map.get("detail").toString();
        }
        if (entity instanceof JsonNode node && node.hasNonNull("detail")) {
            return node.get("detail").asText();
        }
        return null;
    }

    private static String instanceName() {
        String configured = System.getenv("STREAMHOUSE_INSTANCE_ID");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown-host";
        }
        return host + "/" + ProcessHandle.current().pid();
    }
}
