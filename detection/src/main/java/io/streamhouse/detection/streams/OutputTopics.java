package io.streamhouse.detection.streams;

import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;

import java.util.Objects;

/**
 * Where a topology writes: the live topics, or a shadow's copies of them under a prefix. A replay runs the live
 * topology with a shadow's outputs, so a rebuild never writes into a topic that live readers consume.
 *
 * @param prefix put before every output topic's name; empty for the live topics
 */
public record OutputTopics(String prefix) {
    public static final OutputTopics LIVE = new OutputTopics("");

    public OutputTopics {
        Objects.requireNonNull(prefix, "prefix");
    }

    public String of(String liveTopic) {
        return prefix + liveTopic;
    }

    public String deadLetterOf(Topic<?, ?> topic) {
        return of(Topics.deadLetterOf(topic).name());
    }
}
