package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.pii.CardNumbers;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import io.streamhouse.domain.wire.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads Debezium change envelopes (wire format, any writer schema) into {@link ShopChange}s, and typed column values
 * out of their rows. Every failure is a {@link CdcRecordException} whose message says what was wrong, for the
 * dead-letter topic. Thread-safe; one writer-schema reader is cached per schema id.
 */
final class ShopChanges {

    private final SchemaRegistryClient registry;
    private final Map<Integer, GenericDatumReader<GenericRecord>> readers = new ConcurrentHashMap<>();

    ShopChanges(SchemaRegistryClient registry) {
        this.registry = registry;
    }

    /** Decodes one raw value; a null (tombstone) is for the caller to handle before. */
    ShopChange read(String topic, byte[] value) {
        GenericRecord envelope = decode(topic, value);
        GenericRecord source = record(envelope, "source", "the envelope");
        String op = string(envelope, "op");
        if (op == null || !op.matches("[curd]")) {
            throw new CdcRecordException("unknown op '" + op + "' (expected c, u, r or d)");
        }
        String table = string(source, "table");
        if (table == null) {
            throw new CdcRecordException("source.table is missing");
        }
        Long lsn = longValue(source, "lsn");
        Long txId = longValue(source, "txId");
        Long committedMs = longValue(source, "ts_ms");
        Long capturedMs = longValue(envelope, "ts_ms");
        if (lsn == null || committedMs == null) {
            throw new CdcRecordException("source.lsn or source.ts_ms is missing");
        }
        GenericRecord before = optionalRecord(envelope, "before");
        GenericRecord after = optionalRecord(envelope, "after");
        if (after == null && !"d".equals(op)) {
            throw new CdcRecordException("op '" + op + "' without an 'after' row");
        }
        if (before == null && "d".equals(op)) {
            throw new CdcRecordException("delete without a 'before' row");
        }
        return new ShopChange(table, op, before, after, lsn, txId == null ? -1 : txId,
                Instant.ofEpochMilli(committedMs), Instant.ofEpochMilli(capturedMs == null ? committedMs : capturedMs));
    }

    GenericRecord decode(String topic, byte[] value) {
        int id;
        try {
            id = WireFormat.schemaId(value, topic);
        } catch (RuntimeException e) {
            throw new CdcRecordException(e.getMessage(), e);
        }
        try {
            GenericDatumReader<GenericRecord> reader = readers.computeIfAbsent(id,
                    i -> new GenericDatumReader<>(registry.getById(i)));
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(value, WireFormat.HEADER_SIZE,
                    value.length - WireFormat.HEADER_SIZE, null);
            GenericRecord record = reader.read(null, decoder);
            if (!decoder.isEnd()) {
                throw new CdcRecordException("trailing bytes after the record (schema id " + id + ")");
            }
            return record;
        } catch (IOException | RuntimeException e) {
            if (e instanceof CdcRecordException c) {
                throw c;
            }
            throw new CdcRecordException("cannot decode the change with schema id " + id + ": " + e, e);
        }
    }

    // ------------------------------------------------------------------ column access

    /** A text column, card numbers masked: a PAN typed into an address line or a note never reaches shop.customers. */
    static String string(GenericRecord row, String field) {
        Object v = get(row, field);
        return v == null ? null : CardNumbers.mask(v.toString());
    }

    static String requiredString(GenericRecord row, String field) {
        String v = string(row, field);
        if (v == null) {
            throw new CdcRecordException("column '" + field + "' is null or missing");
        }
        return v;
    }

    static Long longValue(GenericRecord row, String field) {
        Object v = get(row, field);
        if (v == null) {
            return null;
        }
        if (v instanceof Number n) {
            return n.longValue();
        }
        throw new CdcRecordException("field '" + field + "' is not a number: " + v);
    }

    static int requiredInt(GenericRecord row, String field) {
        Long v = longValue(row, field);
        if (v == null) {
            throw new CdcRecordException("column '" + field + "' is null or missing");
        }
        return Math.toIntExact(v);
    }

    /** A numeric column written as an Avro decimal (Debezium's precise mode): exact. */
    static BigDecimal requiredDecimal(GenericRecord row, String field) {
        Object v = get(row, field);
        if (v == null) {
            throw new CdcRecordException("column '" + field + "' is null or missing");
        }
        Schema schema = nonNull(row.getSchema().getField(field).schema());
        if (!(v instanceof ByteBuffer buffer) || !(schema.getLogicalType() instanceof org.apache.avro.LogicalTypes.Decimal dec)) {
            throw new CdcRecordException("column '" + field + "' is not an exact decimal (was " + schema + ")");
        }
        ByteBuffer copy = buffer.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return new BigDecimal(new BigInteger(bytes), dec.getScale());
    }

    /** A timestamptz column: Debezium writes it as an ISO-8601 string (io.debezium.time.ZonedTimestamp). */
    static Instant requiredInstant(GenericRecord row, String field) {
        String v = requiredString(row, field);
        try {
            return OffsetDateTime.parse(v).toInstant();
        } catch (DateTimeParseException e) {
            throw new CdcRecordException("column '" + field + "' is not an ISO-8601 timestamp: " + v, e);
        }
    }

    private static Object get(GenericRecord row, String field) {
        if (row == null) {
            return null;
        }
        Schema.Field f = row.getSchema().getField(field);
        if (f == null) {
            throw new CdcRecordException("field '" + field + "' is missing from " + row.getSchema().getFullName());
        }
        return row.get(f.pos());
    }

    private static GenericRecord record(GenericRecord row, String field, String where) {
        Object v = get(row, field);
        if (!(v instanceof GenericRecord r)) {
            throw new CdcRecordException("'" + field + "' of " + where + " is missing");
        }
        return r;
    }

    private static GenericRecord optionalRecord(GenericRecord row, String field) {
        Object v = get(row, field);
        if (v != null && !(v instanceof GenericRecord)) {
            throw new CdcRecordException("'" + field + "' is not a row");
        }
        return (GenericRecord) v;
    }

    private static Schema nonNull(Schema s) {
        if (s.getType() != Schema.Type.UNION) {
            return s;
        }
        return s.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).findFirst().orElse(s);
    }
}
