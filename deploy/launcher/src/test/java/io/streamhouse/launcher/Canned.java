package io.streamhouse.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Answers of Flink's and Kafka Connect's REST APIs, as they give them, under {@code src/test/resources/health}. */
final class Canned {
    static String json(String name) {
        try (InputStream in = Canned.class.getResourceAsStream("/health/" + name + ".json")) {
            if (in == null) {
                throw new IllegalArgumentException("no canned answer " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Canned() {
    }
}
