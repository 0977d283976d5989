package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;

/**
 * The lake's last maintenance pass as the query service keeps it ({@code GET <sql>/v1/maintenance}: the last pass's
 * report, its log line and the next pass's time). The service keeps it in memory: after its restart, "no pass yet"
 * until the next pass.
 */
final class MaintenanceRecord {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * {@code {"lastPassAt", "ok", "summary", "nextPassAt", "failedTables", "millis"}} from the service's answer; a 404
     * is maintenance turned off ({@code "off": true}); anything else unreadable has {@code "unknown"}.
     */
    static ObjectNode of(int status, String body) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.putNull("lastPassAt").putNull("ok").putNull("summary");
        if (status == 404) {
            return o.put("off", true).put("summary", "maintenance off");
        }
        JsonNode answer;
        try {
            answer = status == 200 ? JSON.readTree(body) : null;
        } catch (IOException e) {
            answer = null;
        }
        if (answer == null || !answer.has("nextRunAt")) {
            return o.put("unknown", "the query service answered " + status + " without a maintenance report");
        }
        o.put("off", false).put("nextPassAt", answer.path("nextRunAt").asText());
        JsonNode last = answer.path("lastRun");
        if (last.isMissingNode() || last.isNull()) {
            return o.put("summary", "no pass yet");
        }
        long failed = last.path("failedTables").asLong();
        return o.put("lastPassAt", last.path("startedAt").asText()).put("ok", failed == 0)
                .put("summary", answer.path("lastRunLine").asText("")).put("failedTables", failed)
                .put("millis", last.path("millis").asLong());
    }

    static ObjectNode unknown(String why) {
        return JsonNodeFactory.instance.objectNode().putNull("lastPassAt").putNull("ok").putNull("summary").put("unknown", why);
    }

    private MaintenanceRecord() {
    }
}
