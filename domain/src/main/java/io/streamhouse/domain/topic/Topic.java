package io.streamhouse.domain.topic;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One topic of the log and its contract: name, key and value types, partitions and how long it keeps history.
 * Serdes are not held here (they need a registry client, which is configuration): a process builds them from
 * {@link #keyType()} and {@link #valueType()}.
 *
 * @param retention empty means "forever": the event logs keep their whole history because replay depends on it
 */
public record Topic<K, V>(
        String name,
        Class<K> keyType,
        Class<V> valueType,
        int partitions,
        CleanupPolicy cleanupPolicy,
        Optional<Duration> retention,
        String description) {

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*(\\.[a-z0-9][a-z0-9-]*)+");

    public Topic {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(keyType, "keyType");
        Objects.requireNonNull(valueType, "valueType");
        Objects.requireNonNull(cleanupPolicy, "cleanupPolicy");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(description, "description");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("topic name '" + name + "' must be dot-separated lower-case words (domain.entity[.stage])");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("topic " + name + ": partitions must be at least 1, was " + partitions);
        }
        retention.ifPresent(r -> {
            if (r.isNegative() || r.isZero()) {
                throw new IllegalArgumentException("topic " + name + ": retention must be positive, or empty for forever");
            }
        });
    }

    /** Topic-level configs to create it with. Retention -1 is Kafka's "keep forever". */
    public Map<String, String> configs() {
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put("cleanup.policy", cleanupPolicy.config());
        configs.put("retention.ms", retention.map(r -> Long.toString(r.toMillis())).orElse("-1"));
        return configs;
    }

    /** Subject of the value schema under the TopicNameStrategy that Confluent-compatible registries use. */
    public String valueSubject() {
        return name + "-value";
    }

    public boolean keepsHistoryForever() {
        return retention.isEmpty();
    }

    @Override
    public String toString() {
        return name;
    }
}
