package io.streamhouse.detection.decision;

import io.streamhouse.plumbing.DeadLetterHeaderBuilder;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.state.DecidedTransaction;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.WindowStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * The only step that writes decisions: of every decision made for a transaction id, the first one on the decided
 * topic is the decision, and every later one (a retry decided again, or the replay of a crashed task's uncommitted
 * input, which may have met other rules or alerts) is answered with the first, byte for byte.
 * <p>
 * Why this holds under at-least-once: this step's input is a log partitioned by transaction id, read in order, so
 * "the first" is the same however often it is read. A decision is written to the decisions topic only after its
 * decided record is on that log; if this task dies after writing a decision but before its store's changelog holds it,
 * the replay of its input finds the same first record and writes the same bytes again: a duplicate, never a different
 * answer. The decided topic is Streams' own repartition topic ({@value DecisionTopology#DECIDED_TOPIC}).
 * <p>
 * A later request that is not a repeat (a different fingerprint) is a reused transaction id: it is never decided again.
 * It goes to the requests' dead-letter topic with the reason, and the first decision is written again so that the
 * caller waiting for it (ingest's authorize) sees a decision for another request and answers 409.
 * <p>
 * Every decision written carries the fingerprint of the request it decided in the header
 * {@value Decisions#REQUEST_FINGERPRINT_HEADER} (hex).
 * <p>
 * A request that names a reply partition ({@value Decisions#REPLY_PARTITION_HEADER}, set by an ingest instance that reads
 * only its own replies) gets, after its decision, a copy of it for that partition of the replies topic: same key, bytes
 * and headers. The first decision and its repeats alike, so a retry through another instance is answered there too. The
 * header itself is taken off the decision and its copy (it routes; it is no part of the decision). A replay's shadow
 * writes no replies ({@code replies} false): nobody waits for them.
 */
final class FirstDecision implements FixedKeyProcessor<String, DecidedTransaction, FirstDecision.Out> {
    private static final Logger LOG = LoggerFactory.getLogger(FirstDecision.class);

    /**
     * A record this step writes: a decision (to the decisions topic), its copy for a reply partition, or a request's
     * dead letter.
     *
     * @param replyPartition the partition of the replies topic, for a {@link Kind#REPLY}; -1 otherwise
     */
    record Out(byte[] value, Kind kind, int replyPartition) {
        enum Kind { DECISION, REPLY, DEAD_LETTER }

        boolean deadLetter() {
            return kind == Kind.DEAD_LETTER;
        }

        boolean reply() {
            return kind == Kind.REPLY;
        }
    }

    private final String requestsTopic;
    private final String processorName;
    private final boolean replies;
    private FixedKeyProcessorContext<String, Out> context;
    private WindowStore<String, DecidedTransaction> first;

    /**
     * @param requestsTopic the topic the requests were read from (named in a dead letter's headers)
     * @param replies       whether a request's reply partition header gets it a copy of its decision (live only)
     */
    FirstDecision(String requestsTopic, String processorName, boolean replies) {
        this.requestsTopic = requestsTopic;
        this.processorName = processorName;
        this.replies = replies;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Out> context) {
        this.context = context;
        this.first = context.getStateStore(DecisionTopology.FIRST_DECISIONS_STORE);
    }

    @Override
    public void process(FixedKeyRecord<String, DecidedTransaction> record) {
        DecidedTransaction decided = record.value();
        String transactionId = decided.getTransactionId();
        DecidedTransaction known = firstOf(transactionId);
        if (known == null) {
            // Stored without the request: only a conflict's dead letter needs the request, and that is the later one.
            first.put(transactionId, DecidedTransaction.newBuilder(decided).setRequest(ByteBuffer.allocate(0)).build(),
                    record.timestamp());
            emit(record, decided);
            return;
        }
        if (!known.getRequestFingerprint().equals(decided.getRequestFingerprint())) {
            deadLetter(record, decided, "transaction id " + transactionId + " was already decided for a different request"
                    + " (request fingerprint " + hex(known.getRequestFingerprint()) + ", this one "
                    + hex(decided.getRequestFingerprint()) + "); it is not decided again");
        }
        emit(record, known);
    }

    private DecidedTransaction firstOf(String transactionId) {
        // One entry per transaction id at most (it is put only when absent); the store keeps it for its retention.
        try (var found = first.fetch(transactionId, 0L, Long.MAX_VALUE)) {
            return found.hasNext() ? found.next().value : null;
        }
    }

    private void emit(FixedKeyRecord<String, DecidedTransaction> record, DecidedTransaction decision) {
        int replyPartition = replyPartition(record.headers());
        Headers headers = new RecordHeaders(record.headers().toArray());
        headers.remove(Decisions.REPLY_PARTITION_HEADER);
        headers.remove(Decisions.REQUEST_FINGERPRINT_HEADER);
        headers.add(Decisions.REQUEST_FINGERPRINT_HEADER, hex(decision.getRequestFingerprint()).getBytes(StandardCharsets.US_ASCII));
        byte[] value = bytes(decision.getDecision());
        context.forward(record.withValue(new Out(value, Out.Kind.DECISION, -1)).withHeaders(headers));
        if (replies && replyPartition >= 0) {
            // After the decision, by the same producer, but to another partition, so it may be acknowledged first: an
            // answer taken from the copy is on the decisions topic, or will be once this task has processed its input
            // again after a crash (input offsets commit only after every send is acknowledged; exactly-once: together).
            context.forward(record.withValue(new Out(value, Out.Kind.REPLY, replyPartition)).withHeaders(headers));
        }
    }

    /** The reply partition a request named, or -1 (none, or not a number: then it is answered on the decisions topic only). */
    static int replyPartition(Headers headers) {
        Header h = headers.lastHeader(Decisions.REPLY_PARTITION_HEADER);
        if (h == null || h.value() == null) {
            return -1;
        }
        try {
            int p = Integer.parseInt(new String(h.value(), StandardCharsets.US_ASCII));
            return p >= 0 ? p : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private void deadLetter(FixedKeyRecord<String, DecidedTransaction> record, DecidedTransaction decided, String reason) {
        LOG.warn("Dead-lettering request {}-{}@{}: {}", requestsTopic, decided.getRequestPartition(), decided.getRequestOffset(), reason);
        byte[] raw = bytes(decided.getRequest());
        Headers headers = DeadLetterHeaderBuilder.because(reason)
                .source(requestsTopic, decided.getRequestPartition(), decided.getRequestOffset())
                .processor(processorName).schemaIdOf(raw).onto(record.headers());
        headers.remove(Decisions.REQUEST_FINGERPRINT_HEADER);
        headers.remove(Decisions.REPLY_PARTITION_HEADER);
        // A dead letter is keyed like the record it came from: the request's card token is in the request; the
        // transaction id is what this step knows, and what the reason names.
        context.forward(record.withValue(new Out(raw, Out.Kind.DEAD_LETTER, -1)).withHeaders(headers));
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    static String hex(ByteBuffer buffer) {
        return HexFormat.of().formatHex(bytes(buffer));
    }
}
