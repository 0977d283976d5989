package io.streamhouse.api.runs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.control.RunResults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads the newest run records of one directory ({@link RunResults}' names only, so nothing else there is served).
 * Each record comes back as written with its file name added; one that cannot be read (gone since listed, too large,
 * not a JSON object) comes back as its name and an error, and the others still come back.
 */
final class RunFiles {
    /** Larger than any summary the CLI writes (its differences are capped by --max-diffs): not read whole into the answer. */
    static final long MAX_BYTES = 1 << 20;

    private final ObjectMapper json;

    RunFiles(ObjectMapper json) {
        this.json = json;
    }

    /** {@code {"limit", "available", "runs": [...]}}: at most {@code limit} records of {@code dir}, newest first. */
    ObjectNode newest(Path dir, int limit) throws IOException {
        List<Path> files = RunResults.newestFirst(dir);
        ObjectNode answer = json.createObjectNode();
        answer.put("limit", limit);
        answer.put("available", files.size());
        ArrayNode runs = answer.putArray("runs");
        for (Path file : files.subList(0, Math.min(limit, files.size()))) {
            runs.add(read(file));
        }
        return answer;
    }

    private ObjectNode read(Path file) {
        String name = file.getFileName().toString();
        ObjectNode run = json.createObjectNode();
        run.put("file", name);
        try {
            if (Files.size(file) > MAX_BYTES) {
                return run.put("error", "larger than " + MAX_BYTES + " bytes: not served");
            }
            JsonNode content = json.readTree(Files.readString(file));
            if (!(content instanceof ObjectNode object)) {
                return run.put("error", "not a JSON object");
            }
            run.setAll(object);
            return run.put("file", name);
        } catch (IOException e) {
            // The message names the exception and the problem, not the server's path.
            return run.put("error", "unreadable: " + e.getClass().getSimpleName()
                    + (e instanceof com.fasterxml.jackson.core.JsonProcessingException p ? " " + p.getOriginalMessage() : ""));
        }
    }
}
