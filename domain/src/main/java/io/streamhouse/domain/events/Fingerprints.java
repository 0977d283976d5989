package io.streamhouse.domain.events;

import io.streamhouse.domain.event.Envelope;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.specific.SpecificRecordBase;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;

/**
 * What makes two events with one id the same event: SHA-256 of the event's Avro encoding without what the edge itself
 * stamps (the envelope's recordedAt and source), so a retry of the same content matches and a different event under a
 * reused id does not. Ingest compares it to tell a retry from a conflict; the decision topology compares it to tell a
 * repeated authorization request from a different one under an already decided transaction id.
 */
public final class Fingerprints {

    /**
     * The two stamped fields are blanked for the encoding and put back: the event must be private to the caller for
     * the duration (a copy would need Avro to load the classes again, which goes wrong under Quarkus' class loaders).
     */
    public static byte[] of(SpecificRecord event) {
        if (!(event instanceof SpecificRecordBase record) || !(record.get("envelope") instanceof Envelope envelope)) {
            throw new IllegalArgumentException(event.getClass().getName() + " is not an event with an envelope");
        }
        Instant recordedAt = envelope.getRecordedAt();
        String source = envelope.getSource();
        try {
            envelope.setRecordedAt(Instant.EPOCH);
            envelope.setSource("");
            var bytes = new ByteArrayOutputStream(256);
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(bytes, null);
            new SpecificDatumWriter<SpecificRecord>(record.getSchema(), record.getSpecificData()).write(record, encoder);
            encoder.flush();
            return MessageDigest.getInstance("SHA-256").digest(bytes.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        } finally {
            envelope.setRecordedAt(recordedAt);
            envelope.setSource(source);
        }
    }

    private Fingerprints() {
    }
}
