package io.streamhouse.api.mcp;

import io.quarkiverse.mcp.server.Tool;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.streamhouse.api.decisions.DecisionQueries;

/**
 * The domain tools: questions an operator's agent asks in its own words. {@code why_blocked} answers from the
 * decisions (the same explanation as {@code GET /v1/transactions/{id}/explanation}); the others from the serving
 * projections, each answer carrying its freshness.
 */
@AuditedTools
public class DomainTools {
    static final int MAX_ALERTS = 100;

    private final ToolResults results;
    private final DecisionQueries decisions;
    private final ServingProjections projections;

    public DomainTools(ToolResults results, DecisionQueries decisions, ServingProjections projections) {
        this.results = results;
        this.decisions = decisions;
        this.projections = projections;
    }

    static ToolResponse answer(ToolResults results, ServingProjections.Result result) {
        if (result instanceof ServingProjections.Found found) {
            return results.json(found.view());
        }
        if (result instanceof ServingProjections.Unknown unknown) {
            return ToolResults.error(unknown.message());
        }
        return ToolResults.error(((ServingProjections.Unavailable) result).message());
    }

    @RolesAllowed({Roles.AGENT, Roles.REVIEWER})
    @Tool(name = "why_blocked", description = "Explains the decision on a card payment: outcome (ALLOW / REVIEW / "
            + "BLOCK), a one-line summary, every rule that fired with its version and the values that triggered it, the "
            + "rule as defined now, and the contributing transactions.",
            annotations = @Tool.Annotations(readOnlyHint = true, openWorldHint = false))
    public ToolResponse whyBlocked(@ToolArg(name = "transactionId", description = "the payment's transaction id") String transactionId) {
        return results.guard("why_blocked", () -> {
            String id = ToolResults.requireId("transactionId", transactionId);
            return decisions.explain(id).map(results::json).orElseThrow(() -> new ToolResults.Refusal(
                    "no decision is recorded for transaction " + id + " (unknown, or not decided yet)"));
        });
    }

    @RolesAllowed(Roles.AGENT)
    @Tool(name = "where_is_parcel", description = "Where a parcel is now (or as of an instant): status, last scan, "
            + "hub, the vehicle carrying it and its live position, ETA, SLA risk, recent history, with freshness.",
            annotations = @Tool.Annotations(readOnlyHint = true, openWorldHint = false))
    public ToolResponse whereIsParcel(@ToolArg(name = "parcelId", description = "the parcel id") String parcelId,
                                      @ToolArg(name = "asOf", description = "optional ISO-8601 instant", required = false) String asOf) {
        return results.guard("where_is_parcel", () -> answer(results,
                projections.parcel(ToolResults.requireId("parcelId", parcelId), ToolResults.optionalInstant("asOf", asOf))));
    }

    @RolesAllowed(Roles.AGENT)
    @Tool(name = "customer_state", description = "A customer's current state (or as of an instant): orders, spend, "
            + "cards, open alerts, last decisions and risk, with freshness.",
            annotations = @Tool.Annotations(readOnlyHint = true, openWorldHint = false))
    public ToolResponse customerState(@ToolArg(name = "customerId", description = "the customer id") String customerId,
                                      @ToolArg(name = "asOf", description = "optional ISO-8601 instant", required = false) String asOf) {
        return results.guard("customer_state", () -> answer(results,
                projections.customer(ToolResults.requireId("customerId", customerId), ToolResults.optionalInstant("asOf", asOf))));
    }

    @RolesAllowed(Roles.AGENT)
    @Tool(name = "vehicle_health", description = "A vehicle's health now (or as of an instant): last telemetry, "
            + "alerts, maintenance due, with freshness.",
            annotations = @Tool.Annotations(readOnlyHint = true, openWorldHint = false))
    public ToolResponse vehicleHealth(@ToolArg(name = "vehicleId", description = "the vehicle id") String vehicleId,
                                      @ToolArg(name = "asOf", description = "optional ISO-8601 instant", required = false) String asOf) {
        return results.guard("vehicle_health", () -> answer(results,
                projections.vehicle(ToolResults.requireId("vehicleId", vehicleId), ToolResults.optionalInstant("asOf", asOf))));
    }

    @RolesAllowed(Roles.AGENT)
    @Tool(name = "recent_alerts", description = "The newest alerts (fraud, parcel, maintenance), newest first, one "
            + "page at a time; pass the returned cursor as 'before' for the next page.",
            annotations = @Tool.Annotations(readOnlyHint = true, openWorldHint = false))
    public ToolResponse recentAlerts(@ToolArg(name = "limit", description = "page size, 1-" + MAX_ALERTS + " (default 20)",
                                             required = false, defaultValue = "20") int limit,
                                     @ToolArg(name = "before", description = "cursor from a previous page", required = false) String before) {
        return results.guard("recent_alerts", () -> {
            if (limit < 1 || limit > MAX_ALERTS) {
                throw new ToolResults.Refusal("limit must be between 1 and " + MAX_ALERTS + ", was " + limit);
            }
            return answer(results, projections.alerts(before == null || before.isBlank() ? null : before, limit));
        });
    }
}
