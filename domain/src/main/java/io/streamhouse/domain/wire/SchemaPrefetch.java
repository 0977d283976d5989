package io.streamhouse.domain.wire;

import io.streamhouse.domain.topic.Topic;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

import java.util.Collection;

/**
 * Asks the registry, before an app serves anything, what its serializers and deserializers would otherwise ask at
 * the first record of each topic: the id of this build's value schema under the topic's subject, and the subject's
 * latest schema (the writer schema of what is written now, looked up by id when read). The answers stay in the
 * client's caches, so a first request makes no registry round trip. A subject the registry does not hold yet, or a
 * registry that does not answer, is skipped: the first record looks it up as it always did.
 */
public final class SchemaPrefetch {

    /** What a prefetch found: subjects whose ids are now cached, and those skipped. */
    public record Result(int cached, int skipped) {
    }

    /** The value subjects of {@code topics} whose values are Avro records, looked up through {@code client}. */
    public static Result prefetch(SchemaRegistryClient client, Collection<? extends Topic<?, ?>> topics) {
        int cached = 0;
        int skipped = 0;
        for (Topic<?, ?> topic : topics) {
            if (!SpecificRecord.class.isAssignableFrom(topic.valueType())) {
                continue;
            }
            String subject = AvroSerdeConfig.subjectName(topic.name(), false);
            Schema registered = AvroSchemas.withoutJavaProperties(SpecificData.get().getSchema(topic.valueType()));
            try {
                client.getId(subject, registered);
                client.getLatest(subject);
                cached++;
            } catch (RuntimeException notThere) {
                skipped++;
            }
        }
        return new Result(cached, skipped);
    }

    private SchemaPrefetch() {
    }
}
