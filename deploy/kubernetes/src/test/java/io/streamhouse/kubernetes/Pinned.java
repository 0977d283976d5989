package io.streamhouse.kubernetes;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The versions the root pom pins (pinned-versions.properties, filled in by the build). */
final class Pinned {
    private static final Properties VERSIONS = new Properties();

    static {
        try (InputStream in = Pinned.class.getResourceAsStream("/pinned-versions.properties")) {
            VERSIONS.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String version(String property) {
        String v = VERSIONS.getProperty(property);
        if (v == null || v.startsWith("${")) {
            throw new IllegalStateException(property + " is not filled in: build with Maven (resource filtering)");
        }
        return v;
    }

    private Pinned() {
    }
}
