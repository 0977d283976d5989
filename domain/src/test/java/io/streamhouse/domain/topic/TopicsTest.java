package io.streamhouse.domain.topic;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopicsTest {

    @Test
    void namesAreUniqueAndEventLogsKeepTheirHistory() {
        var names = new HashSet<String>();
        for (Topic<?, ?> t : Topics.allWithDeadLetters()) {
            assertThat(names.add(t.name())).as("duplicate topic %s", t.name()).isTrue();
        }
        for (Topic<String, ?> t : Topics.all()) {
            assertThat(t.keepsHistoryForever()).as("%s must keep its history for replay", t.name()).isTrue();
            assertThat(t.configs()).containsEntry("retention.ms", "-1");
        }
        assertThat(Topics.RULES.configs()).containsEntry("cleanup.policy", "compact");
        assertThat(Topics.deadLetterOf(Topics.TRANSACTION_REQUESTS).name()).isEqualTo("payments.transactions.requested.dlq");
    }

    @Test
    void docsListEveryTopic() throws IOException {
        String doc = Files.readString(Path.of("../docs/topics.md"));
        for (Topic<?, ?> t : Topics.allWithDeadLetters()) {
            assertThat(doc).as("docs/topics.md lists %s", t.name()).contains("`" + t.name() + "`");
        }
    }

    @Test
    void refusesBadNamesAndPartitions() {
        assertThatThrownBy(() -> new Topic<>("Orders", String.class, String.class, 1, CleanupPolicy.DELETE,
                java.util.Optional.empty(), "x")).hasMessageContaining("dot-separated");
        assertThatThrownBy(() -> new Topic<>("shop.orders", String.class, String.class, 0, CleanupPolicy.DELETE,
                java.util.Optional.empty(), "x")).hasMessageContaining("partitions");
    }
}
