package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.wire.SchemaRegistryClient;
import io.streamhouse.domain.wire.WireFormat;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Debezium change envelopes in the shape our Connect converter writes them (the Avro that RegistryAvroConverter maps
 * from Debezium's Connect schemas: optional before/after rows, a source block with table, lsn, txId and ts_ms, op,
 * ts_ms; numeric as Avro decimal, timestamptz as ISO strings), registered in a test registry and framed.
 */
final class DebeziumEnvelopes {

    static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");

    private static final Schema DECIMAL = LogicalTypes.decimal(19, 4).addToSchema(Schema.create(Schema.Type.BYTES));
    private static final Map<String, Schema> ROWS = new LinkedHashMap<>();

    static {
        ROWS.put("customers", SchemaBuilder.record("Value").namespace("shopdb.shop.customers").fields()
                .requiredString("id").requiredString("email").requiredString("full_name").requiredString("registered_at")
                .endRecord());
        ROWS.put("addresses", SchemaBuilder.record("Value").namespace("shopdb.shop.addresses").fields()
                .requiredString("customer_id").requiredString("line1").optionalString("line2").requiredString("city")
                .requiredString("postal_code").requiredString("country").requiredString("updated_at").endRecord());
        ROWS.put("orders", SchemaBuilder.record("Value").namespace("shopdb.shop.orders").fields()
                .requiredString("id").requiredString("customer_id").requiredString("status").requiredString("currency")
                .name("total").type(DECIMAL).noDefault().requiredInt("line_count").optionalString("payment_method_id")
                .requiredString("ship_line1").optionalString("ship_line2").requiredString("ship_city")
                .requiredString("ship_postal_code").requiredString("ship_country").requiredString("placed_at")
                .requiredString("updated_at").optionalString("cancel_reason").endRecord());
        ROWS.put("order_lines", SchemaBuilder.record("Value").namespace("shopdb.shop.order_lines").fields()
                .requiredString("order_id").requiredInt("line_no").requiredString("sku").requiredInt("quantity")
                .name("unit_price").type(DECIMAL).noDefault().endRecord());
        ROWS.put("payment_methods", SchemaBuilder.record("Value").namespace("shopdb.shop.payment_methods").fields()
                .requiredString("id").requiredString("customer_id").requiredString("kind").endRecord());
    }

    private static final Schema SOURCE = SchemaBuilder.record("Source").namespace("io.debezium.connector.postgresql")
            .fields().requiredString("connector").requiredString("db").requiredString("schema").requiredString("table")
            .optionalLong("txId").optionalLong("lsn").requiredLong("ts_ms").endRecord();

    private final SchemaRegistryClient registry;
    private long lsn = 1_000;

    DebeziumEnvelopes(SchemaRegistryClient registry) {
        this.registry = registry;
    }

    static Schema envelope(String table) {
        Schema row = ROWS.get(table);
        return SchemaBuilder.record("Envelope").namespace("shopdb.shop." + table).fields()
                .name("before").type().optional().type(row)
                .name("after").type().optional().type(row)
                .name("source").type(SOURCE).noDefault()
                .requiredString("op")
                .optionalLong("ts_ms")
                .endRecord();
    }

    static GenericRecord row(String table, Object... columnsAndValues) {
        GenericRecord r = new GenericData.Record(ROWS.get(table));
        for (int i = 0; i < columnsAndValues.length; i += 2) {
            Object v = columnsAndValues[i + 1];
            if (v instanceof BigDecimal d) {
                v = ByteBuffer.wrap(d.setScale(4).unscaledValue().toByteArray());
            }
            r.put((String) columnsAndValues[i], v);
        }
        return r;
    }

    static GenericRecord customer(String id, String email) {
        return row("customers", "id", id, "email", email, "full_name", "Ada " + id, "registered_at", "2026-03-02T08:59:00Z");
    }

    static GenericRecord address(String customerId, String line1) {
        return row("addresses", "customer_id", customerId, "line1", line1, "line2", null, "city", "Rotterdam",
                "postal_code", "3011AA", "country", "NL", "updated_at", "2026-03-02T08:59:00Z");
    }

    static GenericRecord order(String id, String customerId, String status, String total, int lineCount) {
        return row("orders", "id", id, "customer_id", customerId, "status", status, "currency", "EUR",
                "total", new BigDecimal(total), "line_count", lineCount, "payment_method_id", "pm-1",
                "ship_line1", "Coolsingel 1", "ship_line2", null, "ship_city", "Rotterdam", "ship_postal_code", "3011AA",
                "ship_country", "NL", "placed_at", "2026-03-02T09:00:00Z", "updated_at", "2026-03-02T09:00:00Z",
                "cancel_reason", null);
    }

    static GenericRecord line(String orderId, int lineNo, String sku, int quantity, String unitPrice) {
        return row("order_lines", "order_id", orderId, "line_no", lineNo, "sku", sku, "quantity", quantity,
                "unit_price", new BigDecimal(unitPrice));
    }

    /** The next change, at a new LSN. */
    byte[] change(String table, String op, GenericRecord before, GenericRecord after, long txId) {
        return change(table, op, before, after, txId, ++lsn);
    }

    byte[] change(String table, String op, GenericRecord before, GenericRecord after, long txId, long atLsn) {
        return change(table, op, before, after, txId, atLsn, T0.toEpochMilli() + atLsn);
    }

    /** A change the database committed at {@code committedAt} by its own clock (source.ts_ms). */
    byte[] committedAt(String table, String op, GenericRecord before, GenericRecord after, long txId, java.time.Instant committedAt) {
        return change(table, op, before, after, txId, ++lsn, committedAt.toEpochMilli());
    }

    private byte[] change(String table, String op, GenericRecord before, GenericRecord after, long txId, long atLsn, long committedMs) {
        Schema schema = envelope(table);
        GenericRecord source = new GenericData.Record(SOURCE);
        source.put("connector", "postgresql");
        source.put("db", "streamhouse");
        source.put("schema", "shop");
        source.put("table", table);
        source.put("txId", txId);
        source.put("lsn", atLsn);
        source.put("ts_ms", committedMs);
        GenericRecord env = new GenericData.Record(schema);
        env.put("before", before);
        env.put("after", after);
        env.put("source", source);
        env.put("op", op);
        env.put("ts_ms", committedMs + 5);
        return frame(schema, env);
    }

    long lastLsn() {
        return lsn;
    }

    private byte[] frame(Schema schema, GenericRecord record) {
        int id = registry.register("shop.cdc.changes-" + schema.getFullName(), schema);
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(WireFormat.header(id));
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
