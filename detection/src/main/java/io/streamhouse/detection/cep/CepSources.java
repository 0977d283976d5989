package io.streamhouse.detection.cep;

import io.streamhouse.domain.topic.Topic;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.types.Either;

/** Where the job reads each topic from: Kafka in production ({@link KafkaCepIo}), bounded collections in tests. */
@FunctionalInterface
public interface CepSources {
    /** The topic's records, decoded: right the event, left a dead letter. */
    <T extends SpecificRecord> Source<Either<DeadLetter, T>, ?, ?> of(Topic<String, T> topic);
}
