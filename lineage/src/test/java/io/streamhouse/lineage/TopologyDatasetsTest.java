package io.streamhouse.lineage;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class TopologyDatasetsTest {

    @Test
    void sourcesAndGlobalStoresAreInputsSinksOutputsAndRepartitionTopicsInternal() {
        var builder = new StreamsBuilder();
        var strings = Consumed.with(Serdes.String(), Serdes.String());
        builder.globalTable("shop.customers.profiles", strings);
        builder.stream("payments.transactions.requested", strings)
                .selectKey((k, v) -> v)
                .groupByKey(Grouped.as("by-value"))
                .count(Materialized.as("counts"))
                .toStream()
                .mapValues(Object::toString)
                .to("payments.transactions.decisions", Produced.with(Serdes.String(), Serdes.String()));
        builder.stream("rules.definitions", strings)
                .to((key, value, context) -> "per-record." + key, Produced.with(Serdes.String(), Serdes.String()));
        builder.stream(Pattern.compile("audit\\..*"), strings).to("audit.copy", Produced.with(Serdes.String(), Serdes.String()));

        var datasets = TopologyDatasets.of(builder.build().describe());

        assertThat(datasets.inputs()).containsExactly("audit\\..*", "payments.transactions.requested", "rules.definitions",
                "shop.customers.profiles");
        assertThat(datasets.outputs()).containsExactly("audit.copy", "payments.transactions.decisions");
        assertThat(datasets.internal()).containsExactly("by-value-repartition");
        assertThat(datasets.dynamicSinks()).isEqualTo(1);
    }

    @Test
    void aTopicTheTopologyWritesAndReadsBackUnderItsOwnNameStaysAnInputAndAnOutput() {
        var builder = new StreamsBuilder();
        var strings = Consumed.with(Serdes.String(), Serdes.String());
        builder.stream("shop.customers", strings).to("shop.customers.profiles", Produced.with(Serdes.String(), Serdes.String()));
        builder.globalTable("shop.customers.profiles", strings);

        var datasets = TopologyDatasets.of(builder.build().describe());

        assertThat(datasets.inputs()).containsExactly("shop.customers", "shop.customers.profiles");
        assertThat(datasets.outputs()).containsExactly("shop.customers.profiles");
        assertThat(datasets.internal()).isEmpty();
    }
}
