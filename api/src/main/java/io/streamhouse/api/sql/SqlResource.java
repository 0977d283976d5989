package io.streamhouse.api.sql;

import io.streamhouse.domain.pii.CardNumbers;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.api.http.Problems;
import io.streamhouse.api.http.Problems.FieldError;
import io.streamhouse.domain.event.AuditAction;
import io.streamhouse.security.audit.AuditTrail;
import jakarta.ws.rs.Consumes;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code POST /v1/sql} with {@code {"sql": "...", "maxRows": n?, "timeoutMillis": n?}}: one read-only snapshot query
 * over the Iceberg catalog ({@code lake.streamhouse.<table>}) and the live log ({@code kafka.streamhouse.<topic>},
 * dots as underscores). Answers {@code columns} (name, type), {@code rows}, {@code truncated} and {@code readAt} (the
 * Iceberg snapshot of each table read, the Kafka end offsets of each partition read). Anything but a query, and
 * malformed SQL, is a 400 problem naming why; a timeout is a 504 problem.
 */
@Path("/v1/sql")
@Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
public class SqlResource {
    private static final Set<String> FIELDS = Set.of("sql", "maxRows", "timeoutMillis");

    private final SnapshotSqlClient client;
    private final ObjectMapper json;
    private final AuditTrail audit;

    public SqlResource(SnapshotSqlClient client, ObjectMapper json, AuditTrail audit) {
        this.client = client;
        this.json = json;
        this.audit = audit;
    }

    @POST
    @RolesAllowed(Roles.ANALYST)
    @Consumes(MediaType.APPLICATION_JSON)
    public Response query(String raw) {
        String sql = sqlOf(raw);
        return audit.http(AuditAction.SNAPSHOT_QUERIED, "sql", sql == null ? "(no sql)" : sql,
                java.util.Map.of("sqlLength", Integer.toString(sql == null ? 0 : sql.length())), false, () -> run(raw));
    }

    /** The SQL text of a request, for the audit trail; null if the body has none. */
    private String sqlOf(String raw) {
        try {
            JsonNode body = raw == null || raw.isBlank() ? null : json.readTree(raw);
            return body != null && body.path("sql").isTextual() ? body.get("sql").asText() : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private Response run(String raw) {
        JsonNode body;
        try {
            body = raw == null || raw.isBlank() ? null : json.readTree(raw);
        } catch (JsonProcessingException e) {
            return Problems.of(400, "Malformed JSON", "the body is not valid JSON", List.of(new FieldError("$", "not valid JSON")));
        }
        if (body == null || !body.isObject()) {
            return Problems.of(400, "Invalid query request", "a JSON object {\"sql\": \"...\"} is required",
                    List.of(new FieldError("$", "must be a JSON object")));
        }
        List<FieldError> errors = new ArrayList<>();
        body.fieldNames().forEachRemaining(f -> {
            if (!FIELDS.contains(f)) {
                errors.add(new FieldError(f, "is not a known field (sql, maxRows, timeoutMillis)"));
            }
        });
        JsonNode sqlNode = body.get("sql");
        String sql = sqlNode != null && sqlNode.isTextual() ? sqlNode.asText() : null;
        if (sqlNode != null && !sqlNode.isNull() && !sqlNode.isTextual()) {
            errors.add(new FieldError("sql", "must be a string"));
        }
        Integer maxRows = integer(body, "maxRows", errors);
        Long timeout = body.has("timeoutMillis") && !body.get("timeoutMillis").isNull()
                ? (body.get("timeoutMillis").isIntegralNumber() ? body.get("timeoutMillis").asLong() : null) : null;
        if (body.has("timeoutMillis") && !body.get("timeoutMillis").isNull() && !body.get("timeoutMillis").isIntegralNumber()) {
            errors.add(new FieldError("timeoutMillis", "must be an integer"));
        }
        if (errors.isEmpty() || errors.stream().noneMatch(e -> e.field().equals("sql"))) {
            SnapshotSqlClient.check(sql, maxRows, timeout).forEach(p -> errors.add(new FieldError(p.field(), p.message())));
        }
        if (!errors.isEmpty()) {
            return Problems.of(400, "Invalid query request", errors.get(0).field() + " " + errors.get(0).message(), errors);
        }
        SnapshotSqlClient.Answer answer = client.run(SnapshotSqlClient.query(sql, maxRows, timeout));
        return Response.status(answer.status()).type(answer.status() == 200 ? MediaType.APPLICATION_JSON : Problems.MEDIA_TYPE)
                .entity(answer.status() == 200 ? answer.body() : masked(answer.body())).build();
    }

    /**
     * The engine's problem with card numbers masked: its messages quote the SQL (docs/pii.md). Rows are
     * answered as they are: numbers in them (epoch millis, ids) would be masked by chance one time in ten.
     */
    private JsonNode masked(JsonNode problem) {
        String text = problem == null ? null : problem.toString();
        String masked = CardNumbers.mask(text);
        if (masked == text) {
            return problem;
        }
        try {
            return json.readTree(masked);
        } catch (JsonProcessingException e) {
            return json.createObjectNode().put("title", "Query failed").put("status", 502)
                    .put("detail", "the SQL engine's problem could not be masked");
        }
    }

    private static Integer integer(JsonNode body, String field, List<FieldError> errors) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            errors.add(new FieldError(field, "must be an integer"));
            return null;
        }
        return n.intValue();
    }
}
