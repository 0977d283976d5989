package io.streamhouse.drills;

import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.replay.ReplayCli;
import io.streamhouse.replay.TopicReader;
import org.apache.kafka.clients.admin.Admin;

import java.io.PrintStream;
import java.util.List;

/** The running stack as every check reads it: its data directory and endpoints, Kafka (read_committed), the registry's serdes. */
record CheckContext(ReplayCli.Stack stack, Admin admin, TopicReader reader, TopicSerdes serdes, String bootstrap, PrintStream log) {
    /** Runs {@code check} on this stack, adds its failures to {@code failures} and returns what it found. */
    <T> T run(Check<T> check, List<String> failures) throws Exception {
        CheckResult<T> result = check.run(this);
        failures.addAll(result.failures());
        return result.found();
    }
}
