package io.streamhouse.loadtests.score;

import io.streamhouse.domain.detection.AlertsInEffect;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.loadtests.generator.Anomaly;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.LateEvent;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One score of a stack's detection against a generation: the alert topics read read_committed until they stand still,
 * revisions and withdrawals resolved, the generation's alerts scored per pattern, and which of its events the CEP job
 * wrote to its {@code .late} topics. What {@code ./streamhouse score} prints, and what the {@code burst} drill reports.
 */
public final class Scoring {

    /**
     * @param settled    the alert topics stood still for the quiet period before the timeout
     * @param late       the generation's event ids found on the CEP job's late-events topics
     * @param unreadable alert records that did not decode
     */
    public record Result(Scorecard card, AlertsInEffect resolved, boolean settled, Duration waited, Duration quiet, Set<String> late,
                         List<String> unreadable, int events, int deliveredLate, long deliveredBeyondBound) {
        public Result {
            late = Set.copyOf(late);
            unreadable = List.copyOf(unreadable);
        }

        public boolean passes() {
            return card.passes() && unreadable.isEmpty();
        }

        /** Share of the generation's events the job wrote to its late topics, in percent. */
        public double lateSharePercent() {
            return events == 0 ? 0 : 100.0 * late.size() / events;
        }

        /** Share of the generation's events the generator delivered beyond its lateness bound, in percent. */
        public double beyondBoundSharePercent() {
            return events == 0 ? 0 : 100.0 * deliveredBeyondBound / events;
        }

        /** The lines {@code ./streamhouse score} prints after reading: counts, late events, the table, misses and extras. */
        public void print(PrintStream out) {
            out.printf(Locale.ROOT, "  %,d alert records, read in %.1f s%s; in effect %,d (%,d superseded by a revision or withdrawn,"
                            + " %,d withdrawals, %,d duplicates); of other traffic %,d; of patterns not planted %,d%n",
                    resolved.read(), waited.toMillis() / 1000.0,
                    settled ? " (no new one in the last " + quiet.toSeconds() + " s of it)"
                            : ", STILL GROWING at the timeout (the score below is of what was there)",
                    resolved.inEffect().size(), resolved.superseded(), resolved.withdrawals(), resolved.duplicates(),
                    card.outsideGeneration(), card.notScored());
            out.printf(Locale.ROOT, "  %,d of the generation's %,d events are on the CEP job's .late topics (it read them behind its"
                            + " watermark; the generator delivered %,d out of order on purpose)%n",
                    late.size(), events, deliveredLate);
            card.print(out, late);
            unreadable.forEach(u -> out.println("  unreadable alert record " + u));
        }
    }

    /**
     * Reads the alert topics named {@code topicPrefix}{@code <live name>} from {@code bootstrapServers} (as the load-tests
     * user) until they stood still for {@code quiet} or {@code timeout}, and scores them against {@code planted}.
     */
    public static Result score(Generation generation, List<Anomaly> planted, String bootstrapServers, String registryUrl,
                               String topicPrefix, Duration quiet, Duration timeout) {
        GenerationScope scope = GenerationScope.of(generation);
        try (CachingSchemaRegistryClient client = new CachingSchemaRegistryClient(registryUrl);
             CommittedReader reader = new CommittedReader(bootstrapServers)) {
            RegistryTopicSerdes serdes = new RegistryTopicSerdes(client);
            CommittedReader.Read read = reader.read(alertTopics(topicPrefix), quiet, timeout);
            Deserializer<Alert> decoder = serdes.valueSerde(Topics.FRAUD_ALERTS).deserializer();
            List<Alert> alerts = new ArrayList<>();
            List<String> unreadable = new ArrayList<>();
            for (ConsumerRecord<String, byte[]> r : read.records()) {
                try {
                    alerts.add(decoder.deserialize(Topics.FRAUD_ALERTS.name(), r.value()));
                } catch (RuntimeException e) {
                    unreadable.add(r.topic() + "/" + r.partition() + "@" + r.offset() + " (" + e.getMessage() + ")");
                }
            }
            AlertsInEffect resolved = AlertsInEffect.of(alerts);
            Scorecard card = Scorecard.of(planted, resolved.inEffect(), scope);
            Set<String> late = lateEvents(reader, serdes, scope, topicPrefix, timeout);
            long beyond = generation.lateEvents().stream().filter(LateEvent::beyondBound).count();
            return new Result(card, resolved, read.settled(), read.waited(), quiet, late, unreadable, scope.events(),
                    generation.lateEvents().size(), beyond);
        }
    }

    public static List<String> alertTopics(String topicPrefix) {
        return List.of(topicPrefix + Topics.FRAUD_ALERTS.name(), topicPrefix + Topics.PARCEL_ALERTS.name(),
                topicPrefix + Topics.MAINTENANCE_ALERTS.name());
    }

    /** Event ids of the generation that the CEP job wrote to its late-events topics. */
    private static Set<String> lateEvents(CommittedReader reader, RegistryTopicSerdes serdes, GenerationScope scope, String topicPrefix,
                                          Duration timeout) {
        Set<String> late = new HashSet<>();
        for (EventKind kind : EventKind.values()) {
            Topic<String, ?> source = kind.topic();
            Deserializer<?> decoder = serdes.valueSerde(source).deserializer();
            for (ConsumerRecord<String, byte[]> r : reader.read(List.of(topicPrefix + Topics.lateOf(source).name()), Duration.ZERO, timeout).records()) {
                try {
                    Object value = decoder.deserialize(source.name(), r.value());  // the source's schema, as the job read it
                    String id = ((Envelope) ((SpecificRecord) value).get(0)).getEventId();
                    if (scope.contains(id)) {
                        late.add(id);
                    }
                } catch (RuntimeException unreadable) {
                    // Not one of the generation's (it wrote only readable events): nothing to attribute.
                }
            }
        }
        return late;
    }

    private Scoring() {
    }
}
