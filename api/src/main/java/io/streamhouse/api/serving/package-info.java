/**
 * Key lookups over the serving projections: the Streams app each instance runs ({@code ServingStreams}), routing a
 * key to the instance that holds it or to a standby ({@code KeyRouter}, framework-free), the query layer for REST and
 * MCP ({@code ProjectionQueries}), and the public and instance-to-instance HTTP endpoints.
 */
package io.streamhouse.api.serving;
