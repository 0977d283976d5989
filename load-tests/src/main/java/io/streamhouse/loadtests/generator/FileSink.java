package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

/**
 * JSON lines, one event per line in delivery order: {@code deliveryIndex, topic, key, type, lateByMillis, value}
 * (value as {@link EventJson}). Byte-identical for the same run. Closing closes the stream it writes to.
 */
public final class FileSink implements Sink {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final BufferedWriter out;
    private final String name;

    public FileSink(Path file) throws IOException {
        this(Files.newOutputStream(file), "file " + file);
    }

    public FileSink(OutputStream stream) {
        this(stream, "file");
    }

    private FileSink(OutputStream stream, String name) {
        this.out = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 1 << 16);
        this.name = name;
    }

    @Override
    public String describe() {
        return name;
    }

    @Override
    public Set<EventKind> supportedKinds() {
        return EnumSet.allOf(EventKind.class);
    }

    @Override
    public void send(GeneratedEvent e) throws IOException {
        out.write(line(e));
        out.write('\n');
    }

    static String line(GeneratedEvent e) throws IOException {
        ObjectNode node = JSON.createObjectNode();
        node.put("deliveryIndex", e.deliveryIndex());
        node.put("topic", e.kind().topic().name());
        node.put("key", e.key());
        node.put("type", e.value().getSchema().getName());
        node.put("lateByMillis", e.latenessMillis());
        node.set("value", EventJson.of(e.value()));
        return JSON.writeValueAsString(node);
    }

    @Override
    public void flush(long deadlineNanos) throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
