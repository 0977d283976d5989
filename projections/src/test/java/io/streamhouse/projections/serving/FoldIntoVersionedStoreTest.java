package io.streamhouse.projections.serving;

import io.streamhouse.domain.topic.DeadLetterHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A fold that throws sends the event to the dead-letter topic it names, and the next event is folded as usual; a
 * failure of Streams itself (a fenced producer, a migrated task) is not the event's fault and goes to Streams.
 */
class FoldIntoVersionedStoreTest {

    private static TopologyTestDriver driver(FoldIntoVersionedStore.Fold<String, String> fold) {
        return driver(fold, e -> Instant.ofEpochMilli(1000));
    }

    private static TopologyTestDriver driver(FoldIntoVersionedStore.Fold<String, String> fold,
                                             java.util.function.Function<String, Instant> eventTime) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(Stores.versionedKeyValueStoreBuilder(
                Stores.persistentVersionedKeyValueStore("s", Duration.ofDays(1)), Serdes.String(), Serdes.String()));
        ServingTopology.deadLetter(builder.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
                .process(() -> new FoldIntoVersionedStore<String, String>("s", fold, eventTime,
                        e -> e.getBytes(StandardCharsets.UTF_8), e -> "in.dlq", new OpenStores()), "s"), "test");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "fold-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        return new TopologyTestDriver(builder.build(), props);
    }

    @Test
    void aFailureOfStreamsItselfIsRethrownNotDeadLettered() {
        try (var driver = driver((prev, key, e) -> {
            throw new StreamsException("the producer was fenced");
        })) {
            var in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
            var dlq = driver.createOutputTopic("in.dlq", new StringDeserializer(), Serdes.ByteArray().deserializer());
            assertThatThrownBy(() -> in.pipeInput("k", "a")).isInstanceOf(StreamsException.class)
                    .hasStackTraceContaining("the producer was fenced");
            assertThat(dlq.isEmpty()).isTrue();
        }
    }

    @Test
    void anEventTheFoldCannotApplyIsDeadLetteredAndTheNextIsApplied() {
        try (var driver = driver((prev, key, e) -> {
            if (e.startsWith("boom")) {
                throw new IllegalStateException("cannot fold " + e);
            }
            return prev == null ? e : prev + "," + e;
        })) {
            var in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
            var dlq = driver.createOutputTopic("in.dlq", new StringDeserializer(), Serdes.ByteArray().deserializer());
            in.pipeInput("k", "a");
            in.pipeInput("k", "boom-1");
            in.pipeInput("k", "b");

            VersionedKeyValueStore<String, String> store = driver.getVersionedKeyValueStore("s");
            assertThat(store.get("k").value()).isEqualTo("a,b");
            var dead = dlq.readRecord();
            assertThat(new String(dead.value(), StandardCharsets.UTF_8)).isEqualTo("boom-1");
            assertThat(new String(dead.headers().lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8))
                    .contains("cannot fold boom-1");
            assertThat(new String(dead.headers().lastHeader(DeadLetterHeaders.SOURCE_TOPIC).value(), StandardCharsets.UTF_8)).isEqualTo("in");
            assertThat(dlq.isEmpty()).isTrue();
        }
    }

    /** Events "name@epoch-millis"; the store keeps one day of history. */
    @Test
    void anEventOlderThanTheHistoryRetentionIsFoldedIntoTheNewestStateNotLost() {
        try (var driver = driver((prev, key, e) -> prev == null ? e : prev + "," + e,
                e -> Instant.ofEpochMilli(Long.parseLong(e.substring(e.indexOf('@') + 1))))) {
            var in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
            var dlq = driver.createOutputTopic("in.dlq", new StringDeserializer(), Serdes.ByteArray().deserializer());
            long tenDays = Duration.ofDays(10).toMillis();
            in.pipeInput("changed-long-ago", "a@1000", 1000);
            in.pipeInput("recent", "b@" + tenDays, tenDays);
            in.pipeInput("first-seen-now", "c@2000", tenDays);
            in.pipeInput("changed-long-ago", "d@3000", tenDays);

            VersionedKeyValueStore<String, String> store = driver.getVersionedKeyValueStore("s");
            assertThat(store.get("first-seen-now").value()).isEqualTo("c@2000");
            assertThat(store.get("first-seen-now").timestamp()).isEqualTo(tenDays);
            assertThat(store.get("changed-long-ago").value()).isEqualTo("a@1000,d@3000");
            assertThat(dlq.isEmpty()).isTrue();
        }
    }
}
