package io.streamhouse.security;

import java.util.List;

/**
 * The roles a caller's token may carry (the JWT {@code groups} claim), one per kind of caller. Endpoints and MCP tools
 * name the roles they admit; nothing is open but liveness, readiness and the protected resource metadata.
 * docs/security.md has the table of roles against endpoints and tools.
 */
public final class Roles {
    /** A payment gateway: authorizes payments and reads the decisions on its own transactions only. */
    public static final String PAYMENTS = "payments";
    /** A vehicle or hub scanner: sends telemetry and parcel scans. */
    public static final String DEVICE = "device";
    /** A fraud reviewer: reads decisions, explanations, alerts and projections; records review outcomes. */
    public static final String REVIEWER = "reviewer";
    /** Changes the decision rules. */
    public static final String RULES_ADMIN = "rules-admin";
    /** Runs snapshot SQL over the lake and the log. */
    public static final String ANALYST = "analyst";
    /** An AI agent over MCP: the read tools and the review action. */
    public static final String AGENT = "agent";
    /** Operations: metrics, OpenAPI, full health, topic metadata, parcels and vehicles. */
    public static final String OPS = "ops";
    /** One api instance asking another for state it holds (key routing). */
    public static final String INTERNAL = "internal";

    public static final List<String> ALL = List.of(PAYMENTS, DEVICE, REVIEWER, RULES_ADMIN, ANALYST, AGENT, OPS, INTERNAL);

    private Roles() {
    }
}
