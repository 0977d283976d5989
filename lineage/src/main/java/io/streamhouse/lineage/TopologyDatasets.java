package io.streamhouse.lineage;

import org.apache.kafka.streams.TopologyDescription;

import java.util.Collections;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The topics a Kafka Streams topology reads and writes, from its {@link TopologyDescription}: every source node's
 * topics and every global store's source topics are inputs, every sink node's topic an output. Repartition topics
 * (written and read by the same topology, named {@code *-repartition} by Streams) are internal: listed apart and left
 * out of the lineage. Changelog topics do not appear in a description at all. What a description cannot name is
 * counted instead: sources subscribed by pattern keep the pattern as their name, sinks choosing their topic per
 * record ({@code TopicNameExtractor}) are counted in {@link #dynamicSinks}.
 */
public record TopologyDatasets(SortedSet<String> inputs, SortedSet<String> outputs, SortedSet<String> internal, int dynamicSinks) {
    static final String REPARTITION_SUFFIX = "-repartition";

    public TopologyDatasets {
        inputs = Collections.unmodifiableSortedSet(new TreeSet<>(inputs));
        outputs = Collections.unmodifiableSortedSet(new TreeSet<>(outputs));
        internal = Collections.unmodifiableSortedSet(new TreeSet<>(internal));
    }

    public static TopologyDatasets of(TopologyDescription description) {
        var read = new TreeSet<String>();
        var written = new TreeSet<String>();
        int dynamic = 0;
        for (TopologyDescription.Subtopology sub : description.subtopologies()) {
            for (TopologyDescription.Node node : sub.nodes()) {
                if (node instanceof TopologyDescription.Source source) {
                    addSource(source, read);
                } else if (node instanceof TopologyDescription.Sink sink) {
                    if (sink.topic() != null) {
                        written.add(sink.topic());
                    } else {
                        dynamic++;
                    }
                }
            }
        }
        for (TopologyDescription.GlobalStore store : description.globalStores()) {
            addSource(store.source(), read);
        }
        var internal = new TreeSet<String>();
        for (String topic : read) {
            if (topic.endsWith(REPARTITION_SUFFIX) && written.contains(topic)) {
                internal.add(topic);
            }
        }
        read.removeAll(internal);
        written.removeAll(internal);
        return new TopologyDatasets(read, written, internal, dynamic);
    }

    private static void addSource(TopologyDescription.Source source, Set<String> read) {
        if (source.topicSet() != null && !source.topicSet().isEmpty()) {
            read.addAll(source.topicSet());
        } else if (source.topicPattern() != null) {
            read.add(source.topicPattern().pattern());
        }
    }
}
