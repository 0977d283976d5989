package io.streamhouse.api.serving;

import io.streamhouse.projections.serving.ServingStores;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.internals.StreamsMetadataImpl;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** The alert feed asks each instance for the feed partitions it is active for, not for any partition numbered alike. */
class KeyRouterFeedHostsTest {
    private static final HostInfo A = new HostInfo("127.0.0.1", 8082);
    private static final HostInfo B = new HostInfo("127.0.0.1", 8092);

    @Test
    void partitionsOfOtherInputsDoNotDecideWhoServesTheFeed() {
        // A is active for parcel scans 0-2 and alerts 3-5; B for parcel scans 3-5 and alerts 0-2.
        StreamsMetadata a = metadata(A, Set.of(ServingStores.ALERT_FEED, ServingStores.PARCEL_TRACKING),
                partitions("logistics.parcels.scanned", 0, 1, 2), partitions("alerts.maintenance", 3, 4, 5));
        StreamsMetadata b = metadata(B, Set.of(ServingStores.ALERT_FEED, ServingStores.PARCEL_TRACKING),
                partitions("logistics.parcels.scanned", 3, 4, 5), partitions("alerts.maintenance", 0, 1, 2));
        Set<Integer> unowned = new TreeSet<>(List.of(0, 1, 2, 3, 4, 5));

        Map<HostInfo, Set<Integer>> hosts = KeyRouter.feedHosts(List.of(a, b),
                ServingStores.INPUTS.get(ServingStores.ALERT_FEED), unowned);

        assertThat(hosts).containsOnlyKeys(A, B);
        assertThat(hosts.get(A)).containsExactly(3, 4, 5);
        assertThat(hosts.get(B)).containsExactly(0, 1, 2);
        assertThat(unowned).isEmpty();
    }

    @Test
    void aFeedPartitionWithNoActiveOwnerStaysUnowned() {
        StreamsMetadata a = metadata(A, Set.of(ServingStores.ALERT_FEED),
                partitions("logistics.parcels.scanned", 0, 1, 2, 3, 4, 5), partitions("alerts.fraud", 0, 1, 2, 3, 4));
        Set<Integer> unowned = new TreeSet<>(List.of(0, 1, 2, 3, 4, 5));

        Map<HostInfo, Set<Integer>> hosts = KeyRouter.feedHosts(List.of(a),
                ServingStores.INPUTS.get(ServingStores.ALERT_FEED), unowned);

        assertThat(hosts.get(A)).containsExactly(0, 1, 2, 3, 4);
        assertThat(unowned).containsExactly(5);
    }

    @SafeVarargs
    private static StreamsMetadata metadata(HostInfo host, Set<String> stores, Set<TopicPartition>... active) {
        Set<TopicPartition> all = new java.util.HashSet<>();
        for (Set<TopicPartition> s : active) {
            all.addAll(s);
        }
        return new StreamsMetadataImpl(host, stores, all, Set.of(), Set.of());
    }

    private static Set<TopicPartition> partitions(String topic, int... numbers) {
        Set<TopicPartition> out = new java.util.HashSet<>();
        for (int n : numbers) {
            out.add(new TopicPartition(topic, n));
        }
        return out;
    }
}
