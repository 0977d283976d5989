package io.streamhouse.api.mcp;

import io.quarkiverse.mcp.server.Tool;
import io.quarkus.security.identity.SecurityIdentity;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.streamhouse.api.sql.ContactTables;
import io.streamhouse.api.sql.SnapshotSqlClient;

import java.util.List;

/**
 * {@code snapshot_query}: the agent's door to {@code POST /v1/sql}, with the same checks and the same answer, except
 * that a caller without the analyst (or reviewer) role may not name a table of customers' contact data
 * ({@link ContactTables}).
 */
@AuditedTools
public class SqlTools {
    private final ToolResults results;
    private final SnapshotSqlClient sql;
    private final SecurityIdentity identity;

    public SqlTools(ToolResults results, SnapshotSqlClient sql, SecurityIdentity identity) {
        this.results = results;
        this.sql = sql;
        this.identity = identity;
    }

    @RolesAllowed({Roles.AGENT, Roles.ANALYST})
    @Tool(name = "snapshot_query", description = "Runs one read-only SQL query (Flink SQL, batch) over the lake and the "
            + "live log and answers columns, rows and what it was read at (Iceberg snapshot ids, Kafka end offsets). "
            + "Tables: lake.streamhouse.<topic with dots as underscores> (Iceberg history; time travel with "
            + "/*+ OPTIONS('snapshot-id'='…') */ or 'as-of-timestamp'='<epoch ms>') and kafka.streamhouse.<topic with dots "
            + "as underscores> (every record up to the end offsets when the query starts; columns: the event's fields plus "
            + "_key, _topic, _partition, _offset, _kafka_timestamp). Example: SELECT outcome, COUNT(*) FROM "
            + "kafka.streamhouse.payments_transactions_decisions GROUP BY outcome. Anything but a query is refused.",
            annotations = @Tool.Annotations(readOnlyHint = true, openWorldHint = false))
    public ToolResponse snapshotQuery(
            @ToolArg(name = "sql", description = "one SQL query (SELECT, WITH or VALUES)") String query,
            @ToolArg(name = "maxRows", description = "row cap, 1 to 10000 (default 1000)", required = false) Integer maxRows) {
        return results.guard("snapshot_query", () -> {
            List<SnapshotSqlClient.FieldProblem> problems = SnapshotSqlClient.check(query, maxRows, null);
            if (!problems.isEmpty()) {
                throw new ToolResults.Refusal(problems.get(0).field() + " " + problems.get(0).message());
            }
            if (identity.getRoles().stream().noneMatch(ContactTables.MAY_QUERY::contains)) {
                ContactTables.named(query).ifPresent(table -> {
                    throw new ToolResults.Refusal("sql names " + table + ", which holds customers' contact data (e-mail, "
                            + "address); this role may not read it. customer_state answers a customer with contact fields masked.");
                });
            }
            SnapshotSqlClient.Answer answer = sql.run(SnapshotSqlClient.query(query, maxRows, null));
            if (answer.status() != 200) {
                throw new ToolResults.Refusal(answer.body().path("title").asText("query failed") + " (" + answer.status()
                        + "): " + answer.body().path("detail").asText());
            }
            return results.json(answer.body());
        });
    }
}
