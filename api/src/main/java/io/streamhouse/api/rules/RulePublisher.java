package io.streamhouse.api.rules;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.domain.decision.Rules;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Writes rule definitions to the compacted rules topic, validated first, acknowledged by the broker (acks=all). */
@ApplicationScoped
public class RulePublisher {
    private final KafkaProducer<String, RuleDefinition> producer;

    public RulePublisher(ApiConfig config, TopicSerdes serdes) {
        this.producer = new KafkaProducer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.API).producer(
                config.kafka().bootstrapServers(), Map.<String, Object>of(
                ProducerConfig.CLIENT_ID_CONFIG, "streamhouse-api-rules",
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)),
                new StringSerializer(), serdes.valueSerde(Topics.RULES).serializer());
    }

    public RecordMetadata publish(RuleDefinition definition) {
        Rules.validate(definition);
        try {
            return producer.send(new ProducerRecord<>(Topics.RULES.name(), definition.getRuleId(), definition))
                    .get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing rule " + definition.getRuleId(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not publish rule " + definition.getRuleId() + ": " + e.getMessage(), e);
        }
    }

    @PreDestroy
    void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
