package io.streamhouse.supervisor;

import java.net.URI;
import java.util.Objects;

/**
 * How a child says it is ready. Each kind yields a value once ready: the rest of the ready line, or the probed
 * base URL; the process classes take their endpoint from it (the broker its bootstrap, Connect its REST URL).
 */
public sealed interface Readiness {

    /** A line on the child's stdout that starts with {@code prefix}; stdout is a pipe, stderr goes to the log. */
    record StdoutLine(String prefix) implements Readiness {
        public StdoutLine {
            Objects.requireNonNull(prefix, "prefix");
        }
    }

    /** A line in the child's log (stdout and stderr both go there) written since this start, starting with {@code prefix}. */
    record LogLine(String prefix) implements Readiness {
        public LogLine {
            Objects.requireNonNull(prefix, "prefix");
        }
    }

    /** {@code GET base.resolve(path)} answers 200; stdout and stderr go to the log. */
    record HttpOk(URI base, String path) implements Readiness {
        public HttpOk {
            Objects.requireNonNull(base, "base");
            Objects.requireNonNull(path, "path");
        }
    }
}
