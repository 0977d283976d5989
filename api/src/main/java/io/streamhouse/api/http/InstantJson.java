package io.streamhouse.api.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Writes every {@link Instant} of the api's JSON as ISO-8601 exactly as {@link Instant#toString()} does (and as
 * Jackson's own serializer did): {@code 2026-03-02T09:00:00Z}, fractions in groups of three digits. Formatting
 * through {@code DateTimeFormatter} was 8 % of a parcel lookup's CPU (each answer carries six or more instants;
 * docs/benchmarks.md, "Serving"); this writes the digits into a reused buffer. Instants outside the years 0–9999 are
 * left to {@link Instant#toString()}.
 */
@Singleton
public class InstantJson implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.registerModule(new SimpleModule("streamhouse-instants").addSerializer(Instant.class, new Writer()));
    }

    /** After the JavaTime module Quarkus registers, so this serializer wins. */
    @Override
    public int priority() {
        return MINIMUM_PRIORITY;
    }

    static final class Writer extends StdSerializer<Instant> {
        private static final ThreadLocal<char[]> BUFFER = ThreadLocal.withInitial(() -> new char[30]);

        Writer() {
            super(Instant.class);
        }

        @Override
        public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            char[] buf = BUFFER.get();
            int len = format(value, buf);
            if (len < 0) {
                gen.writeString(value.toString());
            } else {
                gen.writeString(buf, 0, len);
            }
        }
    }

    /** The ISO-8601 text of {@code t} into {@code buf} (at least 30 chars); its length, or -1 outside years 0–9999. */
    static int format(Instant t, char[] buf) {
        long seconds = t.getEpochSecond();
        long days = Math.floorDiv(seconds, 86_400L);
        int secondOfDay = (int) Math.floorMod(seconds, 86_400L);
        if (days < -719_528L || days > 2_932_896L) { // 0000-01-01 .. 9999-12-31
            return -1;
        }
        LocalDate date = LocalDate.ofEpochDay(days);
        int i = 0;
        int year = date.getYear();
        buf[i++] = (char) ('0' + year / 1000);
        buf[i++] = (char) ('0' + year / 100 % 10);
        buf[i++] = (char) ('0' + year / 10 % 10);
        buf[i++] = (char) ('0' + year % 10);
        buf[i++] = '-';
        i = two(buf, i, date.getMonthValue());
        buf[i++] = '-';
        i = two(buf, i, date.getDayOfMonth());
        buf[i++] = 'T';
        i = two(buf, i, secondOfDay / 3600);
        buf[i++] = ':';
        i = two(buf, i, secondOfDay / 60 % 60);
        buf[i++] = ':';
        i = two(buf, i, secondOfDay % 60);
        int nanos = t.getNano();
        if (nanos != 0) {
            buf[i++] = '.';
            int digits = nanos % 1_000_000 == 0 ? 3 : nanos % 1_000 == 0 ? 6 : 9;
            int value = digits == 3 ? nanos / 1_000_000 : digits == 6 ? nanos / 1_000 : nanos;
            for (int d = digits - 1; d >= 0; d--) {
                buf[i + d] = (char) ('0' + value % 10);
                value /= 10;
            }
            i += digits;
        }
        buf[i++] = 'Z';
        return i;
    }

    private static int two(char[] buf, int i, int value) {
        buf[i] = (char) ('0' + value / 10);
        buf[i + 1] = (char) ('0' + value % 10);
        return i + 2;
    }
}
