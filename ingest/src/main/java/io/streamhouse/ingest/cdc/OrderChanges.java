package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.OrderStatus;
import io.streamhouse.domain.event.OrderStatusChanged;
import io.streamhouse.domain.events.Monies;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.RAW_TOPIC;

/**
 * Rows of {@code shop.orders} and {@code shop.order_lines} as order events. An order's insert waits in the pending
 * store until as many lines as its {@code line_count} have arrived, then becomes one {@code OrderPlaced}; status
 * updates and deletes become {@code OrderStatusChanged} or {@code OrderCancelled} with the previous status and total.
 */
final class OrderChanges {
    private static final String PREFIX = "order:";

    private final ShopChanges changes;
    private final KeyValueStore<String, byte[]> pending;
    private final CdcEmitter emitter;

    OrderChanges(ShopChanges changes, KeyValueStore<String, byte[]> pending, CdcEmitter emitter) {
        this.changes = changes;
        this.pending = pending;
        this.emitter = emitter;
    }

    void change(ShopChange change, byte[] raw) {
        String id = ShopChanges.requiredString(change.row(), "id");
        if (change.isInsert()) {
            int lineCount = ShopChanges.requiredInt(change.after(), "line_count");
            if (lineCount < 1) {
                throw new CdcRecordException("order " + id + " has line_count " + lineCount);
            }
            pending.put(PREFIX + id, PendingRows.encode(List.of(raw)));
        } else if (change.isUpdate()) {
            String previous = change.before() == null ? null : ShopChanges.string(change.before(), "status");
            String current = ShopChanges.requiredString(change.after(), "status");
            if (current.equals(previous)) {
                return;
            }
            String customerId = ShopChanges.requiredString(change.after(), "customer_id");
            if ("CANCELLED".equals(current)) {
                emitter.order(change, id, customerId, "cancelled", OrderCancelled.newBuilder()
                        .setReason(ShopChanges.string(change.after(), "cancel_reason"))
                        .setPrevious(previous == null ? null : status(previous)).setTotal(total(change.after())).build());
            } else {
                emitter.order(change, id, customerId, "status-changed", OrderStatusChanged.newBuilder()
                        .setPrevious(previous == null ? null : status(previous)).setCurrent(status(current))
                        .setTotal(total(change.after())).build());
            }
        } else {
            pending.delete(PREFIX + id);
            String customerId = ShopChanges.requiredString(change.before(), "customer_id");
            String previous = ShopChanges.string(change.before(), "status");
            emitter.order(change, id, customerId, "deleted", OrderCancelled.newBuilder()
                    .setReason("deleted in the shop database")
                    .setPrevious(previous == null ? null : status(previous)).setTotal(total(change.before())).build());
        }
    }

    void lineChange(ShopChange change, byte[] raw) {
        String orderId = ShopChanges.requiredString(change.row(), "order_id");
        if (change.isDelete()) {
            return;
        }
        byte[] stored = pending.get(PREFIX + orderId);
        if (stored == null || !change.isInsert()) {
            throw new CdcRecordException("order line of order " + orderId + " changed outside the order's placement"
                    + " (no pending order): lines are written once, with their order");
        }
        List<byte[]> rows = PendingRows.decode(PendingRows.append(stored, raw));
        ShopChange header = changes.read(RAW_TOPIC, rows.get(0));
        int expected = ShopChanges.requiredInt(header.after(), "line_count");
        if (rows.size() - 1 < expected) {
            pending.put(PREFIX + orderId, PendingRows.encode(rows));
            return;
        }
        pending.delete(PREFIX + orderId);
        placeOrder(header, orderId, rows.subList(1, rows.size()));
    }

    private void placeOrder(ShopChange header, String orderId, List<byte[]> lineValues) {
        GenericRecord row = header.after();
        String currency = ShopChanges.requiredString(row, "currency").trim();
        List<GenericRecord> lineRows = new ArrayList<>();
        for (byte[] v : lineValues) {
            lineRows.add(changes.read(RAW_TOPIC, v).after());
        }
        lineRows.sort(Comparator.comparingInt(r -> ShopChanges.requiredInt(r, "line_no")));
        List<OrderLine> lines = new ArrayList<>();
        for (GenericRecord line : lineRows) {
            lines.add(OrderLine.newBuilder()
                    .setSku(ShopChanges.requiredString(line, "sku"))
                    .setQuantity(ShopChanges.requiredInt(line, "quantity"))
                    .setUnitPrice(Monies.of(ShopChanges.requiredDecimal(line, "unit_price"), currency))
                    .build());
        }
        OrderPlaced placed = OrderPlaced.newBuilder()
                .setLines(lines)
                .setTotal(Monies.of(ShopChanges.requiredDecimal(row, "total"), currency))
                .setShippingAddress(Address.newBuilder()
                        .setLine1(ShopChanges.requiredString(row, "ship_line1"))
                        .setLine2(ShopChanges.string(row, "ship_line2"))
                        .setCity(ShopChanges.requiredString(row, "ship_city"))
                        .setPostalCode(ShopChanges.requiredString(row, "ship_postal_code"))
                        .setCountry(ShopChanges.requiredString(row, "ship_country").trim())
                        .setLocation(null).build())
                .setPaymentMethodId(ShopChanges.string(row, "payment_method_id"))
                .build();
        emitter.order(header, orderId, ShopChanges.requiredString(row, "customer_id"), "placed", placed);
    }

    /**
     * The order's total as the row holds it: carried on status changes and cancellations so that a consumer
     * keeping only some orders (the customer state) still knows what a cancellation takes off.
     */
    private static io.streamhouse.domain.event.Money total(GenericRecord row) {
        return Monies.of(ShopChanges.requiredDecimal(row, "total"), ShopChanges.requiredString(row, "currency").trim());
    }

    private static OrderStatus status(String value) {
        try {
            return OrderStatus.valueOf(value);
        } catch (IllegalArgumentException e) {
            return OrderStatus.UNKNOWN;
        }
    }
}
