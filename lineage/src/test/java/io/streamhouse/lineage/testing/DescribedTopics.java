package io.streamhouse.lineage.testing;

import org.apache.kafka.streams.TopologyDescription;

import java.util.Set;
import java.util.TreeSet;

/**
 * What a topology's description says it reads and writes, walked here on its own (not with the code under test) for
 * the apps' lineage tests: source nodes' and global stores' topics are read, sink nodes' topics written, and
 * repartition topics (written and read back, {@code *-repartition}) are neither.
 */
public final class DescribedTopics {

    public static Set<String> readBy(TopologyDescription description) {
        Set<String> read = new TreeSet<>();
        description.subtopologies().forEach(s -> s.nodes().forEach(n -> {
            if (n instanceof TopologyDescription.Source source) {
                read.addAll(source.topicSet());
            }
        }));
        description.globalStores().forEach(g -> read.addAll(g.source().topicSet()));
        Set<String> written = sinkTopics(description);
        read.removeIf(t -> t.endsWith("-repartition") && written.contains(t));
        return read;
    }

    public static Set<String> writtenBy(TopologyDescription description) {
        Set<String> written = sinkTopics(description);
        written.removeIf(t -> t.endsWith("-repartition"));
        return written;
    }

    private static Set<String> sinkTopics(TopologyDescription description) {
        Set<String> written = new TreeSet<>();
        description.subtopologies().forEach(s -> s.nodes().forEach(n -> {
            if (n instanceof TopologyDescription.Sink sink && sink.topic() != null) {
                written.add(sink.topic());
            }
        }));
        return written;
    }

    private DescribedTopics() {
    }
}
