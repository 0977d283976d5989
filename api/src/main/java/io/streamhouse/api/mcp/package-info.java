/**
 * The MCP server for agents (quarkus-mcp-server-http; streamable HTTP at {@code /mcp}, SSE at {@code /mcp/sse}).
 * Generic tools named like Confluent's real-time context engine ({@code listTopics}, {@code getMetadata},
 * {@code queryData}), domain tools ({@code where_is_parcel}, {@code customer_state}, {@code vehicle_health},
 * {@code recent_alerts}, {@code why_blocked}), {@code snapshot_query} (read-only SQL over the lake and the log, through
 * the lake's query service) and one action tool, {@code record_review_outcome}, whose event goes
 * back into the decision flow. Every failure an agent can cause or meet is an MCP error result with a message
 * ({@code isError: true}), never an exception on the transport.
 */
package io.streamhouse.api.mcp;
