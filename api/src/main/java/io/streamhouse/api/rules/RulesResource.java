package io.streamhouse.api.rules;

import io.streamhouse.domain.pii.CardNumbers;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.api.http.Problems;
import io.streamhouse.api.http.Problems.FieldError;
import io.streamhouse.domain.decision.InvalidRuleException;
import io.streamhouse.domain.decision.RuleSet;
import io.streamhouse.domain.decision.Rules;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.security.audit.AuditTrail;
import io.streamhouse.api.serving.KeyRouter;
import io.streamhouse.api.serving.Lookup;
import io.streamhouse.api.serving.ServingStreams;
import io.streamhouse.domain.state.RuleHistory;
import io.streamhouse.projections.serving.ServingStores;
import jakarta.ws.rs.Consumes;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Rules are data: {@code GET /v1/rules} lists the rules in force on this instance; {@code PUT /v1/rules/{ruleId}}
 * publishes the next version of a rule (or its first) to the rules topic, where every instance's decision topology
 * picks it up without a restart. A definition is validated before it is published (400 naming the bad field);
 * {@code expectedVersion} guards against overwriting a version someone else published meanwhile (409).
 * Publishing is not atomic across concurrent administrators: two PUTs racing with the same expected version can
 * both pass the check, and the later write wins on the compacted topic.
 */
@Path("/v1/rules")
@Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
public class RulesResource {
    private static final Pattern RULE_ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    private static final Set<String> FIELDS = Set.of("kind", "enabled", "outcome", "weight", "parameters", "description",
            "expectedVersion");

    private final RuleBook book;
    private final RulePublisher publisher;
    private final ObjectMapper json;
    private final Clock clock;
    private final AuditTrail audit;
    private final ServingStreams serving;

    public RulesResource(RuleBook book, RulePublisher publisher, ObjectMapper json, Clock clock, AuditTrail audit,
                         ServingStreams serving) {
        this.audit = audit;
        this.serving = serving;
        this.book = book;
        this.publisher = publisher;
        this.json = json;
        this.clock = clock;
    }

    @GET
    @RolesAllowed({Roles.RULES_ADMIN, Roles.REVIEWER})
    public Response list() {
        try {
            var rules = book.current();
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("ruleSetVersion", RuleSet.versionOf(rules.values()));
            body.put("rules", rules.values().stream().map(RuleView::of).toList());
            body.put("kinds", Rules.KINDS);
            return Response.ok(body).build();
        } catch (InvalidStateStoreException e) {
            return Problems.notReady("the rules store", "rebalancing or starting");
        }
    }

    @GET
    @RolesAllowed({Roles.RULES_ADMIN, Roles.REVIEWER})
    @Path("/{ruleId}")
    public Response get(@PathParam("ruleId") String ruleId) {
        try {
            return book.current(ruleId).map(d -> Response.ok(RuleView.of(d)).build())
                    .orElseGet(() -> Problems.of(404, "No such rule", "no rule '" + ruleId + "' is defined"));
        } catch (InvalidStateStoreException e) {
            return Problems.notReady("the rules store", "rebalancing or starting");
        }
    }

    /**
     * Every version of the rule the audit trail records, newest first, with who wrote it, and the version in force
     * here ({@link RuleVersionsView}). The history lives in the serving app's store {@link ServingStores#RULE_HISTORY},
     * asked wherever the rule's partition is held ({@code KeyRouter}); it trails a PUT by the audit write plus a commit
     * interval or two.
     */
    @GET
    @RolesAllowed({Roles.RULES_ADMIN, Roles.REVIEWER})
    @Path("/{ruleId}/versions")
    public Response versions(@PathParam("ruleId") String ruleId) {
        Response invalid = invalidRuleId(ruleId);
        if (invalid != null) {
            return invalid;
        }
        RuleDefinition inForce;
        try {
            inForce = book.current(ruleId).orElse(null);
        } catch (InvalidStateStoreException e) {
            return Problems.notReady("the rules store", "rebalancing or starting");
        }
        KeyRouter router = serving.router();
        if (!serving.enabled() || router == null) {
            return Problems.notReady("the rules' history", serving.enabled() ? "starting" : "serving projections disabled");
        }
        Lookup<RuleHistory> history = router.lookup(ServingStores.RULE_HISTORY, ruleId, null, RuleHistory.class);
        RuleVersionsView view;
        if (history instanceof Lookup.Found<RuleHistory> found) {
            view = RuleVersionsView.of(ruleId, inForce, found.value(), found.freshness());
        } else if (history instanceof Lookup.NotFound<RuleHistory> none) {
            view = RuleVersionsView.of(ruleId, inForce, null, none.freshness());
        } else {
            return Problems.notReady("the rules' history", ((Lookup.Unavailable<RuleHistory>) history).reason());
        }
        if (view.versions().isEmpty()) {
            return Problems.of(404, "No such rule", "no rule '" + ruleId + "' is defined");
        }
        return Response.ok(view).build();
    }

    @PUT
    @RolesAllowed(Roles.RULES_ADMIN)
    @Path("/{ruleId}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response put(@PathParam("ruleId") String ruleId, String raw) {
        // Filled with the definition once it is published: the audit event then carries what was written.
        Map<String, String> written = new LinkedHashMap<>();
        return audit.http(AuditAction.RULE_CHANGED, "rule", ruleId, written, true, () -> publish(ruleId, raw, written));
    }

    /** The 400 problem of a rule id the rules topic may not hold as a key; null for a good one. */
    private static Response invalidRuleId(String ruleId) {
        if (!RULE_ID.matcher(ruleId).matches()) {
            return Problems.of(400, "Invalid rule", "ruleId must be 1-64 lower-case letters, digits or '-'",
                    List.of(new FieldError("ruleId", "must be 1-64 lower-case letters, digits or '-'")));
        }
        if (CardNumbers.contains(ruleId)) {
            // The rule's key on the rules topic: refused rather than masked (docs/pii.md).
            return Problems.of(400, "Invalid rule", "ruleId must not hold a card number",
                    List.of(new FieldError("ruleId", "must not hold a card number")));
        }
        return null;
    }

    private Response publish(String ruleId, String raw, Map<String, String> written) {
        Response invalid = invalidRuleId(ruleId);
        if (invalid != null) {
            return invalid;
        }
        JsonNode body;
        try {
            body = raw == null || raw.isBlank() ? null : json.readTree(raw);
        } catch (JsonProcessingException e) {
            return Problems.of(400, "Malformed JSON", "the body is not valid JSON", List.of(new FieldError("$", "not valid JSON")));
        }
        if (body == null || !body.isObject()) {
            return Problems.of(400, "Invalid rule", "a JSON object is required", List.of(new FieldError("$", "must be a JSON object")));
        }
        List<FieldError> errors = new ArrayList<>();
        body.fieldNames().forEachRemaining(f -> {
            if (!FIELDS.contains(f)) {
                errors.add(new FieldError(f, "is not a known field"));
            }
        });
        String kind = text(body, "kind", errors);
        DecisionOutcome outcome = null;
        String outcomeText = text(body, "outcome", errors);
        if (outcomeText != null) {
            try {
                outcome = DecisionOutcome.valueOf(outcomeText);
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("outcome", "must be one of ALLOW, REVIEW, BLOCK"));
            }
        }
        boolean enabled = true;
        if (body.has("enabled")) {
            if (body.get("enabled").isBoolean()) {
                enabled = body.get("enabled").asBoolean();
            } else {
                errors.add(new FieldError("enabled", "must be true or false"));
            }
        }
        double weight = 1.0;
        if (body.has("weight")) {
            if (body.get("weight").isNumber()) {
                weight = body.get("weight").asDouble();
            } else {
                errors.add(new FieldError("weight", "must be a number"));
            }
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        JsonNode params = body.get("parameters");
        if (params != null && !params.isNull()) {
            if (!params.isObject()) {
                errors.add(new FieldError("parameters", "must be an object of names to values"));
            } else {
                params.fields().forEachRemaining(e -> {
                    if (e.getValue().isValueNode() && !e.getValue().isNull()) {
                        // Free text as far as the log is concerned: a card number in it is masked.
                        parameters.put(CardNumbers.mask(e.getKey()), CardNumbers.mask(e.getValue().asText()));
                    } else {
                        errors.add(new FieldError("parameters." + e.getKey(), "must be a string or a number"));
                    }
                });
            }
        }
        String description = body.hasNonNull("description") ? CardNumbers.mask(body.get("description").asText()) : null;
        Integer expectedVersion = null;
        if (body.hasNonNull("expectedVersion")) {
            if (body.get("expectedVersion").canConvertToInt() && body.get("expectedVersion").asInt() >= 0) {
                expectedVersion = body.get("expectedVersion").asInt();
            } else {
                errors.add(new FieldError("expectedVersion", "must be a whole number, 0 for a new rule"));
            }
        }
        if (!errors.isEmpty()) {
            return Problems.of(400, "Invalid rule", errors.size() + " field(s) are invalid", errors);
        }

        RuleDefinition current;
        try {
            current = book.current(ruleId).orElse(null);
        } catch (InvalidStateStoreException e) {
            return Problems.notReady("the rules store", "rebalancing or starting");
        }
        int currentVersion = current == null ? 0 : current.getVersion();
        if (expectedVersion != null && expectedVersion != currentVersion) {
            return Problems.of(409, "Version conflict", "rule '" + ruleId + "' is at version " + currentVersion
                    + ", not " + expectedVersion + "; read it again and retry");
        }
        int version = currentVersion + 1;
        Instant now = clock.instant();
        RuleDefinition definition = RuleDefinition.newBuilder()
                .setEnvelope(Envelopes.create(Envelopes.derivedEventId("rule", ruleId + ":" + version), ruleId, now, now,
                        "api-rules", EventTypes.versionOf(RuleDefinition.class), null))
                .setRuleId(ruleId).setVersion(version).setKind(kind).setEnabled(enabled).setOutcome(outcome)
                .setWeight(weight).setParameters(parameters).setDescription(description)
                .build();
        try {
            Rules.validate(definition);
        } catch (InvalidRuleException e) {
            String message = e.getMessage().substring(e.field().length() + 2);
            return Problems.of(400, "Invalid rule", e.getMessage(), List.of(new FieldError(e.field(), message)));
        }
        publisher.publish(definition);
        written.putAll(RuleAuditDetails.of(definition));
        return Response.accepted(RuleView.of(definition)).build();
    }

    private static String text(JsonNode body, String name, List<FieldError> errors) {
        JsonNode node = body.get(name);
        if (node == null || node.isNull()) {
            errors.add(new FieldError(name, "is required"));
            return null;
        }
        if (!node.isTextual() || node.asText().isBlank()) {
            errors.add(new FieldError(name, "must be a non-blank string"));
            return null;
        }
        return node.asText();
    }
}
