package io.streamhouse.api.rules;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.quarkus.runtime.StartupEvent;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.domain.event.AuditOutcome;
import io.streamhouse.security.audit.AuditTrail;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Publishes the built-in rule definitions to the rules topic for every rule id the topic does not hold yet.
 * A rule that already has a version (built-in or published by an operator) is never overwritten, so restarts and
 * several instances starting at once are harmless (they would write the same version 1). Each version written is
 * audited as a rule change by the system actor {@value #ACTOR} on channel {@value #CHANNEL}, so a rule's history
 * starts at its built-in version.
 */
@ApplicationScoped
public class RulesBootstrap {
    private static final Logger LOG = Logger.getLogger(RulesBootstrap.class);
    /** The audit subject of the built-in versions. */
    public static final String ACTOR = "system:rules-bootstrap";
    public static final String CHANNEL = "bootstrap";

    void onStart(@Observes StartupEvent event, ApiConfig config, RulePublisher publisher, AuditTrail audit) {
        Set<String> present = presentRuleIds(config.kafka().bootstrapServers());
        List<RuleDefinition> missing = DefaultRules.definitions().stream()
                .filter(d -> !present.contains(d.getRuleId())).toList();
        if (missing.isEmpty()) {
            LOG.infof("Rules topic already holds %d rule(s); no built-in rule published", present.size());
            return;
        }
        var caller = new AuditTrail.Caller(ACTOR, List.of(), null, null);
        for (RuleDefinition d : missing) {
            publisher.publish(d);
            try {
                audit.record(caller, new AuditTrail.Entry(AuditAction.RULE_CHANGED, "rule", d.getRuleId(),
                        RuleAuditDetails.of(d), CHANNEL, AuditOutcome.SUCCESS, null, null), true);
            } catch (AuditTrail.Unaudited e) {
                // Logged in full by the trail; the rule is in force, only its history lacks this version.
            }
        }
        LOG.infof("Published built-in rules %s", missing.stream().map(RuleDefinition::getRuleId).toList());
    }

    private static Set<String> presentRuleIds(String bootstrap) {
        Set<String> ids = new HashSet<>();
        try (var consumer = new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.API).consumer(
                bootstrap, Map.<String, Object>of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)), new StringDeserializer(), new ByteArrayDeserializer())) {
            var partitions = consumer.partitionsFor(Topics.RULES.name(), Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + Topics.RULES.name() + " to its end within 30 s");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (r.value() != null) {
                        ids.add(r.key());
                    } else {
                        ids.remove(r.key());
                    }
                });
            }
        }
        return ids;
    }
}
