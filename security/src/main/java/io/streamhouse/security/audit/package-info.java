/**
 * The audit trail shared by ingest and the api: one {@code AuditEvent} on {@code audit.events} per audited action
 * (rule changes, review outcomes, tool calls, decision reads, snapshot queries, denied requests), written through
 * SmallRye Reactive Messaging, with every text redacted (no card number, no token). docs/audit.md.
 */
package io.streamhouse.security.audit;
