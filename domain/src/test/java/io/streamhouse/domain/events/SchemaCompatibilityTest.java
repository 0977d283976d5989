package io.streamhouse.domain.events;

import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Governance at the source: every released version of every event schema is kept in
 * {@code src/main/schema-history}, and the schema this build writes must stay readable by, and able to read,
 * all of them (FULL_TRANSITIVE: old consumers keep working, and replays of old history still decode).
 * To release a compatible change: bump the version in {@link EventTypes} and add {@code v<N>.avsc}.
 */
class SchemaCompatibilityTest {
    static final Path HISTORY = Path.of("src/main/schema-history");

    /** Every governed schema: events and stored state, with the version this build writes. */
    record Governed(String name, Schema schema, int version) {
    }

    static Stream<Governed> governed() {
        return Stream.concat(
                EventTypes.all().stream().map(t -> new Governed(t.name(), t.schema(), t.version())),
                StateSchemas.all().stream().map(t -> new Governed(t.name(), t.schema(), t.version())));
    }

    @TestFactory
    Stream<DynamicTest> currentSchemaIsFullyCompatibleWithEveryReleasedVersion() {
        return governed().map(type -> DynamicTest.dynamicTest(type.name(), () -> {
            List<Path> versions = releasedVersions(type);
            assertThat(versions).as("released versions of %s", type.schema().getFullName()).isNotEmpty();
            for (Path released : versions) {
                Schema old = new Schema.Parser().parse(released.toFile());
                assertCompatible(type.schema(), old, "current reads " + released.getFileName());
                assertCompatible(old, type.schema(), released.getFileName() + " reads current");
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> newestReleasedVersionIsTheOneThisBuildDeclares() {
        return governed().map(type -> DynamicTest.dynamicTest(type.name(), () -> {
            List<Path> versions = releasedVersions(type);
            Path newest = versions.get(versions.size() - 1);
            assertThat(newest.getFileName().toString()).isEqualTo("v" + type.version() + ".avsc");
            Schema released = new Schema.Parser().parse(newest.toFile());
            assertThat(released)
                    .as("%s changed without a new version: bump EventTypes and add v%d.avsc", type.schema().getFullName(), type.version() + 1)
                    .isEqualTo(type.schema());
        }));
    }

    @Test
    void theCheckCatchesAnIncompatibleChange() {
        Schema v1 = new Schema.Parser().parse("""
                {"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}""");
        Schema requiredFieldAdded = new Schema.Parser().parse("""
                {"type":"record","name":"R","fields":[{"name":"a","type":"string"},{"name":"b","type":"int"}]}""");
        var result = SchemaCompatibility.checkReaderWriterCompatibility(requiredFieldAdded, v1);
        assertThat(result.getType()).isEqualTo(SchemaCompatibility.SchemaCompatibilityType.INCOMPATIBLE);
    }

    private static void assertCompatible(Schema reader, Schema writer, String what) {
        var result = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer);
        assertThat(result.getType()).as(what + ": " + result.getResult().getIncompatibilities())
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
    }

    private static List<Path> releasedVersions(Governed type) throws IOException {
        Path dir = HISTORY.resolve(type.schema().getFullName());
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().matches("v\\d+\\.avsc"))
                    .sorted(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString().replaceAll("\\D", ""))))
                    .toList();
        }
    }
}
