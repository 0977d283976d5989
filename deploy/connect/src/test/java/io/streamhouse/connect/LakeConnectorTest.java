package io.streamhouse.connect;

import io.streamhouse.domain.topic.LakeNames;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LakeConnectorTest {

    private static final Map<String, String> CATALOG = Map.of("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog",
            "uri", "jdbc:postgresql://127.0.0.1:5432/streamhouse", "warehouse", "file:///tmp/lake");

    private static Map<String, String> config() {
        return LakeConnector.config(LakeConnector.settings(CATALOG, "127.0.0.1:9092", "http://127.0.0.1:8085", "AbC-d_1"));
    }

    @Test
    void everyLandedTopicRoutesToExactlyItsOwnTable() {
        Map<String, String> c = config();
        List<String> tables = List.of(c.get("iceberg.tables").split(","));
        assertThat(tables).hasSize(LakeNames.landed().size());
        for (var topic : LakeNames.landed()) {
            List<String> matching = tables.stream()
                    .filter(t -> Pattern.compile(c.get("iceberg.table." + t + ".route-regex")).matcher(topic.name()).matches())
                    .toList();
            assertThat(matching).as(topic.name()).containsExactly(LakeNames.qualifiedTableName(topic.name()));
        }
        assertThat(Pattern.compile(c.get("iceberg.table.streamhouse.shop_orders.route-regex")).matcher("shopXorders").matches())
                .as("a dot in a topic name is a literal dot").isFalse();
        assertThat(c.get("topics").split(",")).containsExactlyInAnyOrder(c.get("transforms.guard.topics").split(","));
    }

    @Test
    void theKnownTrapsAreSetExplicitly() {
        Map<String, String> c = config();
        assertThat(c).containsEntry("key.converter", "org.apache.kafka.connect.storage.StringConverter")
                .containsEntry("consumer.override.isolation.level", "read_committed")
                .containsEntry("iceberg.kafka.bootstrap.servers", "127.0.0.1:9092")
                .containsEntry("iceberg.control.topic", "streamhouse.lake.control.AbC-d_1")
                .containsEntry("iceberg.tables.auto-create-enabled", "false")
                .containsEntry("iceberg.tables.evolve-schema-enabled", "true")
                .containsEntry("iceberg.catalog", "lake")
                .containsEntry("iceberg.catalog.catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")
                .containsEntry("tasks.max", "1")
                .containsEntry("errors.tolerance", "all")
                .containsEntry("errors.deadletterqueue.topic.name", "lake.dlq")
                .containsEntry("transforms", "guard,meta");
        assertThat(Integer.parseInt(c.get("iceberg.control.commit.interval-ms"))).isLessThanOrEqualTo(1_000);
        assertThat(Integer.parseInt(c.get("iceberg.control.commit.timeout-ms"))).isLessThanOrEqualTo(5_000);
        assertThat(LakeConnector.coordinatorGroup()).isEqualTo("connect-lake-coord");
    }

    @Test
    void theGuardFailsARecordWithNoTableAndLetsTheOthersAndTombstonesPass() {
        LakeRouteGuard<SinkRecord> guard = new LakeRouteGuard<>();
        guard.configure(Map.of("topics", "a.b, c.d"));
        SinkRecord routed = new SinkRecord("c.d", 0, Schema.STRING_SCHEMA, "k", Schema.STRING_SCHEMA, "v", 7);
        assertThat(guard.apply(routed)).isSameAs(routed);
        SinkRecord tombstone = new SinkRecord("x.y", 0, Schema.STRING_SCHEMA, "k", null, null, 8);
        assertThat(guard.apply(tombstone)).isSameAs(tombstone);
        SinkRecord stray = new SinkRecord("x.y", 2, Schema.STRING_SCHEMA, "k", Schema.STRING_SCHEMA, "v", 9);
        assertThatThrownBy(() -> guard.apply(stray)).isInstanceOf(DataException.class)
                .hasMessageContaining("no lake table for topic 'x.y'");
        assertThatThrownBy(() -> new LakeRouteGuard<SinkRecord>().configure(Map.of())).hasMessageContaining("topics");
    }
}
