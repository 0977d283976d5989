package io.streamhouse.detection.streams;

import io.streamhouse.domain.topic.Topic;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;

/** Reads a topic so that unreadable records go to its dead-letter topic and processing continues. */
public final class DeadLetters {

    /**
     * @param name        prefix for every processor this adds (processor names are part of the topology's contract)
     * @param expectedKey the record key a value must have (its aggregate id); a record keyed otherwise would land
     *                    in the wrong partition's state, so it is dead-lettered with the reason
     * @return the records that decoded and are keyed as expected, in their original order
     */
    public static <V> KStream<String, V> readOrDeadLetter(StreamsBuilder builder, Topic<String, V> topic,
                                                          Deserializer<V> deserializer, java.util.function.Function<V, String> expectedKey,
                                                          String name) {
        return readOrDeadLetter(builder, topic, deserializer, expectedKey, name, OutputTopics.LIVE);
    }

    /** As above, with the dead-letter topic among {@code outputs} (a replay's shadow writes to its own). */
    public static <V> KStream<String, V> readOrDeadLetter(StreamsBuilder builder, Topic<String, V> topic,
                                                          Deserializer<V> deserializer, java.util.function.Function<V, String> expectedKey,
                                                          String name, OutputTopics outputs) {
        KStream<String, Decoded<V>> decoded = builder
                .stream(outputs.input(topic.name()), Consumed.with(Serdes.String(), Serdes.ByteArray()).withName(name + "-source"))
                .processValues(() -> new DecodeOrDeadLetter<>(deserializer, expectedKey, name + "-decode"), Named.as(name + "-decode"));
        var branches = decoded.split(Named.as(name + "-"))
                .branch((k, v) -> v.isOk(), Branched.as("ok"))
                .defaultBranch(Branched.as("dead"));
        branches.get(name + "-dead")
                .mapValues(Decoded::raw, Named.as(name + "-dead-raw"))
                .to(outputs.deadLetterOf(topic),
                        Produced.with(Serdes.String(), Serdes.ByteArray()).withName(name + "-dead-letter-sink"));
        return branches.get(name + "-ok").mapValues(Decoded::value, Named.as(name + "-value"));
    }

    private DeadLetters() {
    }
}
