package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.events.EventTimes;
import io.streamhouse.domain.pii.CardNumbers;
import io.streamhouse.plumbing.DeadLetterHeaderBuilder;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import java.time.Duration;
import java.time.Instant;

import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.DLQ_SINK;
import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.PENDING_STORE;
import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.PROCESSOR;
import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.RAW_TOPIC;
import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.REGISTRATION_GRACE;
import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.SEEN_STORE;

/**
 * The normaliser's processor: reads each raw change, hands it to the customers' or the orders' rules by table, and
 * dead-letters what cannot be read (byte for byte, card numbers masked) while processing continues.
 */
final class ShopChangeProcessor implements Processor<byte[], byte[], Object, Object> {
    private final ShopChanges changes;
    private ProcessorContext<Object, Object> context;
    private CdcEmitter emitter;
    private CustomerChanges customers;
    private OrderChanges orders;

    ShopChangeProcessor(ShopChanges changes) {
        this.changes = changes;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.emitter = new CdcEmitter(context, context.getStateStore(SEEN_STORE));
        this.customers = new CustomerChanges(changes, context, context.getStateStore(PENDING_STORE), emitter);
        this.orders = new OrderChanges(changes, context.getStateStore(PENDING_STORE), emitter);
        context.schedule(REGISTRATION_GRACE, PunctuationType.WALL_CLOCK_TIME, customers::releaseIdle);
        context.schedule(Duration.ofMinutes(10), PunctuationType.STREAM_TIME, emitter::forgetOldIds);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        if (record.value() == null) {
            return; // tombstone after a delete: the delete made the event
        }
        try {
            ShopChange change = changes.read(RAW_TOPIC, record.value());
            var tooFarAhead = EventTimes.tooFarAhead(change.committedAt(), Instant.ofEpochMilli(record.timestamp()));
            if (tooFarAhead.isPresent()) {
                // The database's clock ahead of Connect's: its events would be dead-lettered by every reader.
                throw new CdcRecordException("commit time: " + tooFarAhead.get());
            }
            emitter.writtenAt(record.timestamp());
            customers.releaseOtherTransactions(change.txId());
            handle(change, record.value());
        } catch (CdcRecordException | IllegalArgumentException | ArithmeticException e) {
            deadLetter(record, e);
        }
    }

    private void handle(ShopChange change, byte[] raw) {
        switch (change.table()) {
            case "customers" -> customers.change(change, raw);
            case "addresses" -> customers.addressChange(change);
            case "orders" -> orders.change(change, raw);
            case "order_lines" -> orders.lineChange(change, raw);
            case "payment_methods", "cdc_heartbeat" -> { }
            default -> throw new CdcRecordException("change of unknown table shop." + change.table());
        }
    }

    private void deadLetter(Record<byte[], byte[]> record, Exception e) {
        RecordHeaders masked = new RecordHeaders();
        record.headers().forEach(h -> masked.add(h.key(), CardNumbers.mask(h.value())));
        // Byte for byte but for card numbers, masked digit by digit so the Avro framing still reads (docs/pii.md).
        var why = DeadLetterHeaderBuilder.because(CardNumbers.mask(String.valueOf(e.getMessage()))).exception(e).processor(PROCESSOR);
        context.recordMetadata().ifPresent(meta -> why.source(meta.topic(), meta.partition(), meta.offset()));
        Headers headers = why.schemaIdOf(record.value()).onto(masked);
        context.forward(new Record<Object, Object>(CardNumbers.mask(record.key()), CardNumbers.mask(record.value()),
                record.timestamp(), headers), DLQ_SINK);
    }
}
