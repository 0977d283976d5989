package io.streamhouse.api.rules;

import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The rules as this instance's decision topology sees them: the global store fed by the rules topic. What is
 * listed here is what the next decision on this instance uses.
 */
@ApplicationScoped
public class RuleBook {
    private final KafkaStreams streams;
    private final Deserializer<RuleDefinition> deserializer;

    public RuleBook(KafkaStreams streams, TopicSerdes serdes) {
        this.streams = streams;
        this.deserializer = serdes.valueSerde(Topics.RULES).deserializer();
    }

    /** Latest definition of every rule, by rule id (definitions that cannot be read are left out, as the decider does). */
    public Map<String, RuleDefinition> current() {
        Map<String, RuleDefinition> rules = new TreeMap<>();
        var store = streams.store(StoreQueryParameters.fromNameAndType(DecisionTopology.RULES_STORE,
                QueryableStoreTypes.<String, byte[]>keyValueStore()));
        try (var it = store.all()) {
            it.forEachRemaining(kv -> {
                try {
                    rules.put(kv.key, deserializer.deserialize(Topics.RULES.name(), kv.value));
                } catch (RuntimeException unreadable) {
                    // skipped, as DecideProcessor skips it
                }
            });
        }
        return rules;
    }

    public Optional<RuleDefinition> current(String ruleId) {
        return Optional.ofNullable(current().get(ruleId));
    }
}
