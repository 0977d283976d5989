package io.streamhouse.supervisor;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The classpath of a child JVM whose jars must stay off this JVM's classpath (the broker's Kafka server, the Connect
 * worker, the lake's Iceberg and Flink): the module's own code plus the entries {@code maven-dependency-plugin}
 * recorded in a resource at build time. Fails with the build command to run when the resource or one of its files is
 * missing, rather than starting a child that dies on a missing class.
 */
public final class RecordedClasspath {

    private RecordedClasspath() {
    }

    /**
     * @param anchor   a class of the module whose child this is (its code source comes first)
     * @param resource the resource the build wrote, e.g. {@code streamhouse-connect.classpath}
     * @param module   the module's path in the build, e.g. {@code deploy/connect}, named in the error
     */
    public static String of(Class<?> anchor, String resource, String module) {
        List<String> entries = new ArrayList<>();
        try {
            entries.add(Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the code of " + module, e);
        }
        String recorded;
        try (InputStream in = anchor.getResourceAsStream("/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " is missing: build " + module + " with Maven"
                        + " (maven-dependency-plugin writes it at generate-resources)");
            }
            recorded = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
        List<String> missing = new ArrayList<>();
        for (String entry : recorded.split(File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            if (!Files.exists(Path.of(entry))) {
                missing.add(entry);
            }
            entries.add(entry);
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("the classpath of " + module + " recorded at build time names missing files "
                    + missing + ": run `./mvnw -pl " + module + " -am package`");
        }
        return String.join(File.pathSeparator, entries);
    }
}
