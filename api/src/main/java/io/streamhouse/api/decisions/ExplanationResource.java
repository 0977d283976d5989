package io.streamhouse.api.decisions;

import io.streamhouse.api.http.Problems;
import io.streamhouse.api.rules.RuleBook;
import io.streamhouse.domain.event.DecisionReason;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.projections.DecisionLookupProjection;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code GET /v1/transactions/{id}/explanation}: why a payment got its outcome, for a person or an agent — every
 * rule that fired with its version, the values that triggered it, the rule as defined now (and whether that is
 * still the version that decided), and the events that contributed: the request itself and, for card rules, the
 * card's payments inside the rule's window.
 */
@Path("/v1/transactions/{id}/explanation")
public class ExplanationResource {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");
    private final KafkaStreams streams;
    private final RuleBook rules;

    public ExplanationResource(KafkaStreams streams, RuleBook rules) {
        this.streams = streams;
        this.rules = rules;
    }

    public record RuleNow(String kind, int currentVersion, boolean decidedWithCurrentVersion, boolean enabled,
                          Map<String, String> parameters, String description) {
    }

    public record Reason(String ruleId, int ruleVersion, String outcome, String message, Map<String, String> facts,
                         List<String> contributingTransactions, RuleNow ruleNow) {
    }

    public record Explanation(String transactionId, String outcome, String summary, long ruleSetVersion,
                              String requestEventId, String decisionEventId, List<Reason> reasons) {
    }

    @GET
    @Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
    public Response explain(@PathParam("id") String id) {
        if (!ID.matcher(id).matches()) {
            return Problems.of(400, "Bad transaction id", "id must be 1-64 letters, digits or . _ : -");
        }
        TransactionDecision decision;
        Map<String, RuleDefinition> now;
        try {
            decision = streams.store(StoreQueryParameters.fromNameAndType(DecisionLookupProjection.STORE,
                    QueryableStoreTypes.<String, TransactionDecision>keyValueStore())).get(id);
            now = rules.current();
        } catch (InvalidStateStoreException e) {
            return Problems.notReady("the decision store", streams.state());
        }
        if (decision == null) {
            return Problems.of(404, "No decision", "no decision is recorded for transaction " + id);
        }
        List<Reason> reasons = new ArrayList<>();
        for (DecisionReason r : decision.getReasons()) {
            RuleDefinition current = now.get(r.getRuleId());
            RuleNow ruleNow = current == null ? null : new RuleNow(current.getKind(), current.getVersion(),
                    current.getVersion() == r.getRuleVersion(), current.getEnabled(),
                    new LinkedHashMap<>(current.getParameters()), current.getDescription());
            String listed = r.getFacts().get("transactions");
            List<String> contributing = listed == null || listed.isEmpty() ? List.of(id) : Arrays.asList(listed.split(","));
            reasons.add(new Reason(r.getRuleId(), r.getRuleVersion(), r.getOutcome().name(), r.getMessage(),
                    new LinkedHashMap<>(r.getFacts()), contributing, ruleNow));
        }
        return Response.ok(new Explanation(id, decision.getOutcome().name(), summary(decision), decision.getRuleSetVersion(),
                decision.getEnvelope().getCorrelationId(), decision.getEnvelope().getEventId(), reasons)).build();
    }

    static String summary(TransactionDecision d) {
        String verb = switch (d.getOutcome()) {
            case ALLOW -> "Allowed";
            case REVIEW -> "Held for review";
            case BLOCK -> "Blocked";
        };
        if (d.getReasons().isEmpty()) {
            return verb + ": no rule fired (rule set version " + d.getRuleSetVersion() + ").";
        }
        return verb + " because " + d.getReasons().stream()
                .map(r -> r.getRuleId() + " v" + r.getRuleVersion() + " (" + r.getOutcome() + "): " + r.getMessage())
                .collect(Collectors.joining("; ")) + ".";
    }
}
