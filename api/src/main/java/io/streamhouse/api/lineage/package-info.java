/**
 * Lineage of the api: the decision app's OpenLineage run (the serving app's is in {@code ServingStreams}), and
 * {@code GET /v1/lineage}, the graph folded from every processor's events on {@code lineage.events}.
 */
package io.streamhouse.api.lineage;
