/**
 * OpenLineage for the Kafka Streams applications: what each reads and writes, taken from its real
 * {@code TopologyDescription}, as run events (START when it starts, COMPLETE or FAIL when it stops) on
 * {@code lineage.events} and in a file; and the lineage graph folded from those events. Nothing here knows Quarkus.
 */
package io.streamhouse.lineage;
