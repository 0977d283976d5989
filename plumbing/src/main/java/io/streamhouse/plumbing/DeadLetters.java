package io.streamhouse.plumbing;

import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.events.EventTimes;
import io.streamhouse.domain.topic.Topic;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;

import java.time.Instant;
import java.util.Optional;

/**
 * Reads a topic so that unreadable records, records keyed otherwise than their aggregate, and events too far ahead of
 * the time they were written ({@link #tooFarAhead}) go to its dead-letter topic with the reason, and processing
 * continues.
 */
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
        return readDecodedOrDeadLetter(builder, topic, deserializer, expectedKey, name, outputs)
                .mapValues(Decoded::value, Named.as(name + "-value"));
    }

    /**
     * As above, but each value comes with the raw bytes it was read as ({@link Decoded#raw()}), for a step that may
     * dead-letter it later (it writes what was read rather than encoding the value again).
     */
    public static <V> KStream<String, Decoded<V>> readDecodedOrDeadLetter(StreamsBuilder builder, Topic<String, V> topic,
                                                                          Deserializer<V> deserializer,
                                                                          java.util.function.Function<V, String> expectedKey,
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
        return branches.get(name + "-ok");
    }

    /**
     * Why an event read from a record written at {@code writtenAtMs} cannot be taken: its envelope's time is more than
     * {@link EventTimes#MAX_AHEAD} ahead ({@link EventTimes#tooFarAhead}, its reason). Empty for a value without an
     * envelope, and for a record without a timestamp.
     */
    public static Optional<String> tooFarAhead(Object value, long writtenAtMs) {
        if (writtenAtMs < 0 || !(value instanceof SpecificRecord r) || r.getSchema().getFields().isEmpty()
                || !(r.get(0) instanceof Envelope envelope) || envelope.getOccurredAt() == null) {
            return Optional.empty();
        }
        return EventTimes.tooFarAhead(envelope.getOccurredAt(), Instant.ofEpochMilli(writtenAtMs));
    }

    private DeadLetters() {
    }
}
