/**
 * OpenLineage for every Streamhouse processor: what each reads and writes, taken from what really runs (a Kafka Streams
 * app's {@code TopologyDescription}, the CEP job's Flink lineage graph, a connector's registered configuration), as run
 * events (START, RUNNING heartbeats, COMPLETE or FAIL) on {@code lineage.events} and in a file; and the lineage graph
 * folded from those events. Nothing here knows Quarkus, and only the Streams parts need Kafka Streams.
 */
package io.streamhouse.lineage;
