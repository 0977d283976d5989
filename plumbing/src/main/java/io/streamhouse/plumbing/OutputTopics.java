package io.streamhouse.plumbing;

import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;

import java.util.Objects;

/**
 * Where a topology writes (and, for a backfill, where it reads its stream inputs): the live topics, or a shadow's
 * copies of them under a prefix. A replay runs the live topology with a shadow's outputs, so a rebuild never writes
 * into a topic that live readers consume; a backfill also gives it stitched copies of its inputs (lake + log).
 *
 * @param prefix      put before every output topic's name; empty for the live topics
 * @param inputPrefix put before every stream input's name (read through {@code DeadLetters}); empty for the live ones
 */
public record OutputTopics(String prefix, String inputPrefix) {
    public static final OutputTopics LIVE = new OutputTopics("");

    public OutputTopics {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(inputPrefix, "inputPrefix");
    }

    public OutputTopics(String prefix) {
        this(prefix, "");
    }

    /** The same outputs, reading stream inputs from {@code inputPrefix + live name}. */
    public OutputTopics withInputs(String inputPrefix) {
        return new OutputTopics(prefix, inputPrefix);
    }

    /** The topic a stream input is read from. */
    public String input(String liveTopic) {
        return inputPrefix + liveTopic;
    }

    public String of(String liveTopic) {
        return prefix + liveTopic;
    }

    public String deadLetterOf(Topic<?, ?> topic) {
        return of(Topics.deadLetterOf(topic).name());
    }
}
