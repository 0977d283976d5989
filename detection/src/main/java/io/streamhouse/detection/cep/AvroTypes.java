package io.streamhouse.detection.cep;

import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;

/** Generated Avro classes as Flink types (flink-avro's serializer), so events and state never fall back to Kryo. */
final class AvroTypes {

    @SuppressWarnings({"unchecked", "rawtypes"})
    static <T extends SpecificRecord> TypeInformation<T> of(Class<T> type) {
        return (TypeInformation<T>) new AvroTypeInfo(type.asSubclass(SpecificRecordBase.class));
    }

    private AvroTypes() {
    }
}
