package io.streamhouse.domain.wire;

import io.streamhouse.domain.wire.fixture.ShipmentScanned;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/** Shared test data for the wire-format tests. */
final class Shipments {

    static final String TOPIC = "logistics.shipments.scanned";

    static final ShipmentScanned ROTTERDAM_SCAN = ShipmentScanned.newBuilder()
            .setScanId("scan-0001")
            .setParcelId("parcel-42")
            .setHub("NL-RTM")
            .setWeightGrams(1250)
            .setAttempt(2)
            .setNote("left at reception")
            .build();

    /** Version 2 exactly as the .avsc file says, as a producer in another language registers it. */
    static final Schema V2_AS_WRITTEN = loadFile(java.nio.file.Path.of("src/test/avro/shipment-scanned.avsc"));

    /** Version 1 of the schema: no {@code attempt}, no {@code note}. */
    static final Schema V1 = load("/wire/shipment-scanned-v1.avsc");

    /** Same record name, but {@code weightGrams} became a string: no reader of v2 can read it. */
    static final Schema INCOMPATIBLE = new Schema.Parser().parse("""
            {"type":"record","name":"ShipmentScanned","namespace":"io.streamhouse.domain.wire.fixture",
             "fields":[{"name":"scanId","type":"string"},{"name":"parcelId","type":"string"},
                       {"name":"hub","type":"string"},{"name":"weightGrams","type":"string"}]}""");

    private Shipments() {
    }

    static GenericRecord v1Scan(String scanId, int weightGrams) {
        GenericRecord record = new GenericData.Record(V1);
        record.put("scanId", scanId);
        record.put("parcelId", "parcel-7");
        record.put("hub", "DE-HAM");
        record.put("weightGrams", weightGrams);
        return record;
    }

    /** What a producer using another client (or an older schema) would have written. */
    static byte[] framed(int schemaId, GenericRecord record) {
        try {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(body, null);
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
            return WireFormat.frame(schemaId, body.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The generator's input, read from the module directory (surefire's working directory). */
    private static Schema loadFile(java.nio.file.Path file) {
        try {
            return new Schema.Parser().parse(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Schema load(String resource) {
        try (InputStream in = Shipments.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + resource);
            }
            return new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
