package io.streamhouse.launcher;

import io.streamhouse.security.Roles;
import io.streamhouse.security.StackTokens;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;

/** What {@code up} prints once the stack is ready: where each component answers, the development tokens, a first try. */
final class ReadyLines {
    private static final PrintStream OUT = System.out;

    static void print(RunningStack stack, Path data) {
        OUT.println("  ingest          " + stack.ingest.url() + "  (POST /v1/transactions, /v1/transactions/authorize, /v1/telemetry, /v1/parcels/{id}/scans)");
        OUT.println("  api             " + stack.api.url() + "  (GET /v1/transactions/{id}/decision, /v1/transactions/{id}/explanation, /v1/rules,");
        OUT.println("                  /v1/parcels/{id}, /v1/customers/{id}, /v1/vehicles/{id} [?asOf=], /v1/alerts, /v1/alerts/stream, /q/openapi, /q/metrics)");
        for (int k = 2; k <= stack.ingestInstances.size() + 1; k++) {
            OUT.printf("  %-15s %s  (the same ingest: any instance takes any request; ./streamhouse kill|stop|start|restart %s)%n",
                    LaunchOptions.ingestComponent(k), stack.ingestInstances.get(k - 2).url(), LaunchOptions.ingestComponent(k));
        }
        for (int k = 2; k <= stack.apiInstances.size() + 1; k++) {
            OUT.printf("  %-15s %s  (the same api: any instance answers any key; ./streamhouse kill|stop|start|restart %s)%n",
                    LaunchOptions.apiComponent(k), stack.apiInstances.get(k - 2).url(), LaunchOptions.apiComponent(k));
        }
        OUT.println("  mcp (agents)    " + stack.api.url().resolve("/mcp") + "  (MCP streamable HTTP; SSE at /mcp/sse)");
        if (stack.sql != null) {
            OUT.println("  snapshot SQL    POST " + stack.api.url().resolve("/v1/sql") + "  (lake.streamhouse.*, kafka.streamhouse.*; query service pid "
                    + stack.sql.pid() + " on " + stack.sql.url() + ")");
        }
        OUT.println("  schema registry " + stack.platform.schemaRegistryUrl() + "  (GET /subjects)");
        OUT.println("  kafka           " + stack.platform.bootstrapServers());
        if (stack.cep != null) {
            OUT.println("  CEP job         Flink MiniCluster in a child JVM (pid " + stack.cep.pid() + "), alerts on alerts.fraud, alerts.parcels, alerts.maintenance");
        }
        if (stack.cepCluster != null) {
            OUT.println("  CEP job         job " + stack.cepCluster.jobId() + " on a Flink session cluster (" + String.join(", ", stack.cepCluster.components())
                    + "), REST " + stack.cepCluster.endpoint().split(" ")[1] + ", alerts on alerts.fraud, alerts.parcels, alerts.maintenance");
        }
        stack.platform.connectWorker().ifPresent(worker -> OUT.println("  kafka connect   " + worker.restUrl() + "  (GET "
                + (stack.platform.cdcSource().isPresent() ? "/connectors/shop-cdc/status, " : "")
                + "/connectors/lake/status)"));
        OUT.println("  console         " + stack.api.url().resolve("/console/") + "  (./streamhouse console --role reviewer prints a link that signs you in)");
        OUT.println("  health          " + stack.api.url().resolve("/q/health/ready") + "  (liveness and readiness open; the rest of /q needs ops)");
        OUT.println("  logs            " + data.resolve("logs"));
        OUT.println("Development tokens (valid " + StackTokens.LIFETIME.toDays() + " days; one per role, also in "
                + data.resolve("tokens") + "; docs/security.md says which role may call what):");
        stack.tokens.forEach((role, token) -> OUT.printf("  %-12s %s%n", role, token));
        OUT.println("Try:");
        OUT.println("  PAYMENTS=$(cat " + StackTokens.tokenFile(data, Roles.PAYMENTS) + ")");
        OUT.println("  curl -s -XPOST " + stack.ingest.url() + "/v1/transactions/authorize -H \"Authorization: Bearer $PAYMENTS\" -H 'Content-Type: application/json' -d '"
                + "{\"transactionId\":\"tx-1\",\"occurredAt\":\"" + Instant.now().toString().substring(0, 19) + "Z\","
                + "\"card\":{\"number\":\"4111111111111111\"},\"merchant\":{\"id\":\"m-1\",\"name\":\"Shop\",\"mcc\":\"5411\",\"country\":\"NL\"},"
                + "\"amount\":\"1500.00\",\"currency\":\"EUR\",\"channel\":\"ECOMMERCE\"}'");
        OUT.println("  curl -s " + stack.api.url() + "/v1/transactions/tx-1/explanation -H \"Authorization: Bearer $PAYMENTS\"");
        OUT.println("  curl -s " + stack.api.url() + "/v1/parcels/P-1042 -H \"Authorization: Bearer $(cat " + StackTokens.tokenFile(data, Roles.OPS) + ")\"");
    }

    private ReadyLines() {
    }
}
