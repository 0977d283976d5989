package io.streamhouse.detection.cep;

import io.streamhouse.domain.state.CepFact;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.util.Collector;

/**
 * An event as one pattern needs it: (subject, fact), or nothing. Chained to the decoding, before the keyed exchange,
 * so the network carries a few fields per event instead of the whole event, and events the pattern can never use stop
 * here.
 */
final class FactsOf<E> implements FlatMapFunction<E, Tuple2<String, CepFact>> {
    static final TypeInformation<Tuple2<String, CepFact>> TYPE =
            new TupleTypeInfo<>(Types.STRING, new AvroTypeInfo<>(CepFact.class));

    private final SubjectPattern<E> pattern;

    FactsOf(SubjectPattern<E> pattern) {
        this.pattern = pattern;
    }

    @Override
    public void flatMap(E event, Collector<Tuple2<String, CepFact>> out) {
        pattern.factOf(event).ifPresent(f -> out.collect(Tuple2.of(pattern.subject(event), f)));
    }
}
