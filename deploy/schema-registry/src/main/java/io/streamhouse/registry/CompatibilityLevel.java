package io.streamhouse.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;

/**
 * Confluent's compatibility levels, checked with Avro's own {@link SchemaCompatibility} (reader/writer resolution
 * rules, the same rules a consumer applies when it decodes).
 *
 * <ul>
 *   <li>BACKWARD: the new schema can read data written with the old one (consumers upgrade first).</li>
 *   <li>FORWARD: the old schema can read data written with the new one (producers upgrade first).</li>
 *   <li>FULL: both.</li>
 *   <li>*_TRANSITIVE: against every live version, not only the latest.</li>
 * </ul>
 */
public enum CompatibilityLevel {
    NONE(false, false, false),
    BACKWARD(true, false, false),
    BACKWARD_TRANSITIVE(true, false, true),
    FORWARD(false, true, false),
    FORWARD_TRANSITIVE(false, true, true),
    FULL(true, true, false),
    FULL_TRANSITIVE(true, true, true);

    private final boolean backward;
    private final boolean forward;
    private final boolean transitive;

    CompatibilityLevel(boolean backward, boolean forward, boolean transitive) {
        this.backward = backward;
        this.forward = forward;
        this.transitive = transitive;
    }

    public boolean transitive() {
        return transitive;
    }

    /** Case-insensitive, as Confluent accepts "backward" too. */
    public static Optional<CompatibilityLevel> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(valueOf(text.trim().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** A previous version to check against, with its version number for the messages. */
    public record Previous(int version, Schema schema) {
    }

    /**
     * Why {@code candidate} may not follow {@code previous} at this level; empty when it may. The caller chooses the
     * versions: the latest only, or all of them for the transitive levels.
     */
    public List<String> check(Schema candidate, List<Previous> previous) {
        List<String> problems = new ArrayList<>();
        for (Previous old : previous) {
            if (backward) {
                // The new schema reads what the old one wrote.
                describe(candidate, old.schema(), "new schema cannot read data written with version "
                        + old.version(), problems);
            }
            if (forward) {
                describe(old.schema(), candidate, "version " + old.version()
                        + " cannot read data written with the new schema", problems);
            }
        }
        return problems;
    }

    private void describe(Schema reader, Schema writer, String direction, List<String> problems) {
        for (Incompatibility i : SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getResult()
                .getIncompatibilities()) {
            problems.add("{errorType:'" + i.getType() + "', description:'" + direction + ": " + i.getMessage()
                    + "', location:'" + i.getLocation() + "', field:'" + FieldPath.of(reader, i.getLocation())
                    + "', compatibility:'" + name() + "'}");
        }
    }
}
