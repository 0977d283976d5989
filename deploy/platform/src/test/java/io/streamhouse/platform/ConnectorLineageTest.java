package io.streamhouse.platform;

import io.openlineage.client.OpenLineageClientUtils;
import io.streamhouse.connect.CdcConnector;
import io.streamhouse.connect.LakeConnector;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.topic.LakeNames;
import io.streamhouse.lineage.JobLineage;
import io.streamhouse.lineage.LineageGraph;
import io.streamhouse.lineage.LineageRun;
import io.streamhouse.lineage.TopicTransport;
import io.streamhouse.lineage.testing.LineageSchema;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.RegexRouter;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The connectors' lineage from the configurations the platform registers ({@link CdcConnector#config},
 * {@link LakeConnector#config}), checked against those configurations as Connect applies them (Kafka's own
 * {@link RegexRouter}), and their events against the OpenLineage spec.
 */
class ConnectorLineageTest {
    static final String BOOTSTRAP = "127.0.0.1:41519";
    static final Map<String, String> CDC = CdcConnector.config(new CdcConnector.Source(
            "jdbc:postgresql://127.0.0.1:41520/shopdb", "streamhouse", "secret", null, null), "http://127.0.0.1:41521");
    static final Map<String, String> LAKE = LakeConnector.config(LakeConnector.settings(Map.of(
            "catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog", "uri", "jdbc:postgresql://127.0.0.1:41520/shopdb",
            "warehouse", "file:///var/streamhouse/lake/"), BOOTSTRAP, "http://127.0.0.1:41521", "cluster-1"));

    static Set<String> names(List<JobLineage.Dataset> datasets) {
        return datasets.stream().map(JobLineage.Dataset::name).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Where Connect sends a record Debezium writes to {@code topic}: through the connector's own RegexRouter. */
    static String routedByConnect(Map<String, String> config, String topic) {
        try (RegexRouter<SourceRecord> router = new RegexRouter<>()) {
            Map<String, String> props = new HashMap<>();
            props.put("regex", config.get("transforms.route.regex"));
            props.put("replacement", config.get("transforms.route.replacement"));
            router.configure(props);
            return router.apply(new SourceRecord(Map.of(), Map.of(), topic, null, null)).topic();
        }
    }

    @Test
    void theDebeziumSourceReadsTheCapturedTablesAndWritesWhereItsRouterSendsThem() {
        assertThat(CDC.get("transforms")).isEqualTo("route");
        assertThat(CDC.get("transforms.route.type")).isEqualTo(ConnectorLineage.REGEX_ROUTER);
        JobLineage lineage = ConnectorLineage.of(CdcConnector.DEFAULT_NAME, CDC, BOOTSTRAP, "4.3.1");

        List<String> tables = Arrays.asList(CdcConnector.TABLES.split(","));
        assertThat(lineage.inputs()).extracting(JobLineage.Dataset::namespace).containsOnly("postgres://127.0.0.1:41520");
        assertThat(names(lineage.inputs())).isEqualTo(tables.stream().map(t -> "shopdb." + t).collect(Collectors.toSet()));

        Set<String> expected = new TreeSet<>();
        tables.forEach(t -> expected.add(routedByConnect(CDC, CdcConnector.TOPIC_PREFIX + "." + t)));
        expected.add(routedByConnect(CDC, "__debezium-heartbeat." + CdcConnector.TOPIC_PREFIX));
        assertThat(names(lineage.outputs())).isEqualTo(expected)
                .containsExactly("__debezium-heartbeat.shopdb", Topics.CDC_SHOP_CHANGES.name());
        assertThat(lineage.outputs()).extracting(JobLineage.Dataset::namespace).containsOnly("kafka://" + BOOTSTRAP);
        assertThat(lineage.toString() + lineage.inputs() + lineage.outputs()).doesNotContain("secret");
    }

    @Test
    void theIcebergSinkReadsItsTopicsAndWritesItsTablesByLocationWithTheCatalogNameAsSymlink() {
        JobLineage lineage = ConnectorLineage.of(LakeConnector.NAME, LAKE, BOOTSTRAP, "4.3.1");

        assertThat(names(lineage.inputs())).isEqualTo(new TreeSet<>(Arrays.asList(LAKE.get("topics").split(","))))
                .isEqualTo(LakeNames.landed().stream().map(t -> t.name()).collect(Collectors.toSet()));
        List<String> tables = Arrays.asList(LAKE.get("iceberg.tables").split(","));
        List<JobLineage.Dataset> written = lineage.outputs().stream().filter(d -> d.namespace().equals("file")).toList();
        assertThat(written).hasSize(tables.size());
        for (JobLineage.Dataset table : written) {
            assertThat(table.symlinks()).singleElement().satisfies(s -> {
                assertThat(s.type()).isEqualTo("TABLE");
                assertThat(s.namespace()).isEqualTo("file:/var/streamhouse/lake");
                assertThat(tables).contains(s.name());
                assertThat(table.name()).isEqualTo("/var/streamhouse/lake/" + s.name().replace('.', '/'));
            });
        }
        assertThat(written).extracting(d -> d.symlinks().get(0).name()).containsExactlyInAnyOrderElementsOf(tables);
        assertThat(lineage.outputs()).filteredOn(d -> !d.namespace().equals("file"))
                .containsExactly(new JobLineage.Dataset("kafka://" + BOOTSTRAP, LakeConnector.DEAD_LETTER_TOPIC));
        assertThat(names(lineage.outputs())).noneMatch(n -> n.startsWith(LakeConnector.CONTROL_TOPIC_PREFIX));
    }

    @Test
    void theirRunEventsAreValidOpenLineageAndFoldIntoOneGraphWithTheLakeDownstreamOfCdcsTopic() {
        List<String> values = new ArrayList<>();
        for (var connector : List.of(ConnectorLineage.of(CdcConnector.DEFAULT_NAME, CDC, BOOTSTRAP, "4.3.1"),
                ConnectorLineage.of(LakeConnector.NAME, LAKE, BOOTSTRAP, "4.3.1"))) {
            var producer = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
            var run = new LineageRun(connector, List.of(new TopicTransport(producer, Topics.LINEAGE_EVENTS.name())),
                    Clock.fixed(Instant.parse("2026-12-03T08:00:00Z"), ZoneOffset.UTC));
            run.start();
            run.running();
            run.close();
            producer.history().forEach(r -> values.add(r.value()));
        }
        assertThat(values).hasSize(6).allSatisfy(v -> assertThat(LineageSchema.violations(v)).as(v).isEmpty());
        assertThat(values).anyMatch(v -> v.contains("\"symlinks\"") && v.contains("SymlinksDatasetFacet.json"));

        LineageGraph graph = LineageGraph.of(values.stream().map(OpenLineageClientUtils::runEventFromJson).toList());
        String cdc = LineageGraph.jobId("streamhouse", CdcConnector.DEFAULT_NAME);
        String lake = LineageGraph.jobId("streamhouse", LakeConnector.NAME);
        assertThat(graph.outputsOf(cdc)).contains(Topics.CDC_SHOP_CHANGES.name());
        assertThat(graph.inputsOf(cdc)).contains("shopdb.shop.orders");
        assertThat(graph.inputsOf(lake)).contains(Topics.TRANSACTION_DECISIONS.name());
        assertThat(graph.outputsOf(lake)).contains("/var/streamhouse/lake/streamhouse/payments_transactions_decisions");
        assertThat(graph.node(lake).lastEvent()).isEqualTo("COMPLETE");
    }

    @Test
    void anUnknownConnectorClassIsRefusedNotGuessed() {
        assertThatThrownBy(() -> ConnectorLineage.of("jdbc-sink", Map.of("connector.class", "io.confluent.JdbcSink"),
                BOOTSTRAP, "4.3.1")).hasMessageContaining("io.confluent.JdbcSink");
    }
}
