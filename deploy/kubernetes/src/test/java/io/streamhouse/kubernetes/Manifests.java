package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The committed manifests under {@code manifests/}, one {@link Doc} per YAML document, in file order. */
final class Manifests {
    static final Path DIR = Path.of("manifests");
    static final YAMLMapper YAML = new YAMLMapper();

    /** One resource: the file it is in, its position there, and its tree. */
    record Doc(String file, int index, JsonNode node) {
        String kind() {
            return node.path("kind").asText();
        }

        String name() {
            return node.path("metadata").path("name").asText();
        }

        String apiVersion() {
            return node.path("apiVersion").asText();
        }

        /** The first container of a workload's pod template (a Deployment's, a StatefulSet's, a Job's). */
        JsonNode container() {
            return node.path("spec").path("template").path("spec").path("containers").get(0);
        }

        /** How a failure names it: {@code 10-kafka.yaml: Kafka streamhouse}. */
        String where() {
            return file + ": " + kind() + " " + name();
        }
    }

    static List<Doc> all() {
        List<Path> files;
        try (Stream<Path> list = Files.list(DIR)) {
            files = list.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Doc> docs = new ArrayList<>();
        for (Path file : files) {
            docs.addAll(read(file));
        }
        return docs;
    }

    static List<Doc> read(Path file) {
        List<Doc> docs = new ArrayList<>();
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
            int i = 0;
            while (it.hasNext()) {
                JsonNode node = it.next();
                if (node != null && !node.isNull() && !node.isMissingNode()) {
                    docs.add(new Doc(file.getFileName().toString(), i++, node));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return docs;
    }

    static List<Doc> ofKind(String kind) {
        return all().stream().filter(d -> d.kind().equals(kind)).toList();
    }

    /** The one resource of this kind and name; fails naming both when there is none or more. */
    static Doc one(String kind, String name) {
        List<Doc> found = all().stream().filter(d -> d.kind().equals(kind) && d.name().equals(name)).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one " + kind + " " + name + " under " + DIR + ", found " + found.size());
        }
        return found.get(0);
    }

    private Manifests() {
    }
}
