package io.streamhouse.lakequery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.streamhouse.domain.topic.Topics;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * The query service's JVM: starts the warm {@link SnapshotSqlEngine}, serves {@code POST /v1/query} and
 * {@code GET /health} on 127.0.0.1, then prints one line {@value #READY_PREFIX}{@code <base url>} on stdout. Exits when
 * its stdin reaches end-of-file (the parent closed it, or died), so no orphan survives the launcher or a test.
 *
 * <p>Arguments: {@code --bootstrap}, {@code --registry}, {@code --port} (0: any free port), {@code --parallelism};
 * the lake catalog with {@code --iceberg-uri} (JDBC URL), {@code --iceberg-user}, {@code --warehouse}, the password in
 * the environment variable {@value #PASSWORD_ENV} (not on the command line, where {@code ps} would show it).
 */
public final class LakeQueryMain {

    public static final String READY_PREFIX = "STREAMHOUSE-LAKE-QUERY-READY ";
    public static final String PASSWORD_ENV = "STREAMHOUSE_LAKE_JDBC_PASSWORD";
    static final int DEFAULT_MAX_ROWS = 1000;
    static final int MAX_ROWS_LIMIT = 10_000;
    static final long DEFAULT_TIMEOUT_MS = 30_000;
    static final long MAX_TIMEOUT_MS = 300_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private LakeQueryMain() {
    }

    /**
     * Exits with 1 when the start fails: the engine's threads would otherwise keep a JVM without a server alive, and
     * the launcher would wait out its start timeout before saying so.
     */
    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        Map<String, String> a = parse(args);
        Map<String, String> iceberg = new LinkedHashMap<>();
        if (a.containsKey("iceberg-uri")) {
            iceberg.put("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
            iceberg.put("uri", a.get("iceberg-uri"));
            iceberg.put("jdbc.schema-version", "V1");
            iceberg.put("warehouse", require(a, "warehouse"));
            if (a.containsKey("iceberg-user")) {
                iceberg.put("jdbc.user", a.get("iceberg-user"));
            }
            String password = System.getenv(PASSWORD_ENV);
            if (password != null && !password.isEmpty()) {
                iceberg.put("jdbc.password", password);
            }
        }
        int parallelism = Integer.parseInt(a.getOrDefault("parallelism", "2"));
        MaintenanceSettings maintenanceSettings;
        try {
            maintenanceSettings = MaintenanceSettings.fromArgs(a);
        } catch (IllegalArgumentException e) {
            usage(e.getMessage());
            return;
        }
        boolean maintain = maintenanceSettings.enabled() && !iceberg.isEmpty();
        // The port first: the launcher chose it before this JVM started (the apps are given the URL at once), and the
        // engine's own MiniCluster binds ephemeral ports that could take it while the engine starts.
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    Integer.parseInt(a.getOrDefault("port", "0"))), 16);
        } catch (java.net.BindException e) {
            System.err.println("port " + a.getOrDefault("port", "0") + " is in use: " + e.getMessage());
            System.exit(1);
            return;
        }
        // One slot more than queries use when the lake is maintained: compaction jobs run beside queries, not behind them.
        EngineSettings settings = new EngineSettings(require(a, "bootstrap"), require(a, "registry"), Topics.all(), iceberg,
                Math.max(parallelism, 2) + (maintain ? 1 : 0), parallelism);
        SnapshotSqlEngine engine = SnapshotSqlEngine.start(settings);
        MaintenanceScheduler maintenance = null;
        if (maintain) {
            // A catalog of its own (not shared with the query thread), named as the sink's: the JDBC catalog keys its rows by name.
            maintenance = MaintenanceScheduler.start(org.apache.iceberg.CatalogUtil.buildIcebergCatalog(SnapshotSqlEngine.LAKE,
                    iceberg, new org.apache.hadoop.conf.Configuration()), org.apache.iceberg.catalog.Namespace.of(SnapshotSqlEngine.DATABASE),
                    maintenanceSettings, engine.restAddress());
        } else {
            System.err.println("lake maintenance off" + (iceberg.isEmpty() ? " (no lake catalog)" : " (--maintenance off)"));
        }
        MaintenanceScheduler scheduler = maintenance;
        // Two threads: one query runs at a time in the engine; the other answers /health and a waiting query.
        server.setExecutor(Executors.newFixedThreadPool(2));
        server.createContext("/v1/query", exchange -> handleQuery(engine, exchange));
        server.createContext("/v1/maintenance", exchange -> handleMaintenance(scheduler, exchange));
        server.createContext("/health", exchange -> send(exchange, 200, "application/json", "{\"status\":\"UP\"}"));
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort();
        System.out.println(READY_PREFIX + url);
        System.out.flush();
        InputStream stdin = System.in;
        while (stdin.read() >= 0) {
            // Nothing is sent on stdin; end-of-file is the stop signal.
        }
        server.stop(0);
        if (maintenance != null) {
            maintenance.close();
        }
        engine.close();
        System.exit(0);
    }

    private static void handleQuery(SnapshotSqlEngine engine, HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                problem(exchange, 405, "Method not allowed", "use POST with a JSON body {\"sql\": \"...\"}");
                return;
            }
            JsonNode body;
            try {
                body = JSON.readTree(exchange.getRequestBody());
            } catch (IOException e) {
                problem(exchange, 400, "Malformed request", "the body is not JSON: " + e.getMessage());
                return;
            }
            QueryRequest request;
            try {
                request = QueryRequest.from(body);
            } catch (IllegalArgumentException e) {
                problem(exchange, 400, "Invalid request", e.getMessage());
                return;
            }
            QueryAnswer answer = engine.query(request.sql(), request.maxRows(), request.timeout());
            // Java 17 has no pattern switch; the sealed QueryAnswer keeps this chain complete.
            if (answer instanceof QueryAnswer.Rows rows) {
                ObjectNode out = JSON.createObjectNode();
                out.set("columns", JSON.valueToTree(rows.columns()));
                out.set("rows", rows.rows());
                out.put("rowCount", rows.rows().size());
                out.put("truncated", rows.truncated());
                out.put("maxRows", request.maxRows());
                out.set("readAt", JSON.valueToTree(rows.readAt()));
                out.put("elapsedMillis", rows.elapsedMillis());
                send(exchange, 200, "application/json", JSON.writeValueAsString(out));
            } else if (answer instanceof QueryAnswer.Rejected r) {
                problem(exchange, r.status(), "Not a valid read-only query", r.reason());
            } else if (answer instanceof QueryAnswer.TimedOut t) {
                problem(exchange, t.status(), "Query timed out", "the query did not finish within " + t.timeoutMillis()
                        + " ms (it was " + t.stage() + "); its job was cancelled. Narrow the query or raise timeoutMillis (at most "
                        + MAX_TIMEOUT_MS + ")");
            } else if (answer instanceof QueryAnswer.Busy b) {
                problem(exchange, b.status(), "Engine busy",
                        "another query held the engine for the whole timeout of " + b.waitedMillis() + " ms");
            } else if (answer instanceof QueryAnswer.Failed f) {
                problem(exchange, f.status(), "Query failed", f.reason());
            }
        } catch (RuntimeException e) {
            problem(exchange, 500, "Query failed", SnapshotSqlEngine.rootMessage(e));
        }
    }

    /**
     * {@code GET}: the maintenance settings, the last pass's report (null before the first) and when the next is due;
     * {@code POST}: a pass now (after a running one), answered with its report.
     */
    private static void handleMaintenance(MaintenanceScheduler scheduler, HttpExchange exchange) throws IOException {
        try (exchange) {
            if (scheduler == null) {
                problem(exchange, 404, "Maintenance off", "this query service does not maintain the lake (--maintenance off, or no lake catalog)");
                return;
            }
            ObjectNode out = JSON.createObjectNode();
            switch (exchange.getRequestMethod()) {
                case "GET" -> {
                    MaintenanceSettings m = scheduler.settings();
                    out.putObject("settings").put("interval", m.interval().toString()).put("snapshotMaxAge", m.snapshotMaxAge().toString())
                            .put("retainLast", m.retainLast()).put("targetFileSizeBytes", m.targetFileSizeBytes())
                            .put("orphanMinAge", m.orphanMinAge().toString());
                    out.set("lastRun", scheduler.last().map(LakeQueryMain::json).orElse(JSON.nullNode()));
                    scheduler.last().ifPresent(r -> out.put("lastRunLine", r.line()));
                    out.put("nextRunAt", scheduler.nextRunAt().toString());
                }
                case "POST" -> out.set("lastRun", json(scheduler.runNow()));
                default -> {
                    problem(exchange, 405, "Method not allowed", "GET the last maintenance pass, or POST to run one now");
                    return;
                }
            }
            send(exchange, 200, "application/json", JSON.writeValueAsString(out));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problem(exchange, 503, "Interrupted", "the service is stopping");
        } catch (RuntimeException e) {
            problem(exchange, 500, "Maintenance failed", SnapshotSqlEngine.rootMessage(e));
        }
    }

    private static JsonNode json(LakeMaintenance.RunReport r) {
        ObjectNode out = JSON.createObjectNode();
        out.put("startedAt", r.startedAt().toString());
        out.put("millis", r.millis());
        out.put("filesRewritten", r.filesRewritten());
        out.put("snapshotsExpired", r.snapshotsExpired());
        out.put("orphansDeleted", r.orphansDeleted());
        out.put("failedTables", r.failedTables());
        out.set("tables", JSON.valueToTree(r.tables()));
        return out;
    }

    /** A request as the engine takes it; limits applied here so that the api and a direct caller get the same checks. */
    record QueryRequest(String sql, int maxRows, Duration timeout) {
        static QueryRequest from(JsonNode body) {
            if (body == null || !body.isObject()) {
                throw new IllegalArgumentException("the body must be a JSON object {\"sql\": \"...\"}");
            }
            JsonNode sql = body.get("sql");
            if (sql == null || !sql.isTextual() || sql.asText().isBlank()) {
                throw new IllegalArgumentException("field 'sql' is required: one SQL query as a string");
            }
            int maxRows = DEFAULT_MAX_ROWS;
            JsonNode m = body.get("maxRows");
            if (m != null && !m.isNull()) {
                if (!m.canConvertToInt() || !m.isIntegralNumber() || m.intValue() < 1 || m.intValue() > MAX_ROWS_LIMIT) {
                    throw new IllegalArgumentException("field 'maxRows' must be an integer from 1 to " + MAX_ROWS_LIMIT + ", was " + m);
                }
                maxRows = m.intValue();
            }
            long timeout = DEFAULT_TIMEOUT_MS;
            JsonNode t = body.get("timeoutMillis");
            if (t != null && !t.isNull()) {
                if (!t.isIntegralNumber() || t.longValue() < 1 || t.longValue() > MAX_TIMEOUT_MS) {
                    throw new IllegalArgumentException("field 'timeoutMillis' must be an integer from 1 to " + MAX_TIMEOUT_MS + ", was " + t);
                }
                timeout = t.longValue();
            }
            return new QueryRequest(sql.asText(), maxRows, Duration.ofMillis(timeout));
        }
    }

    private static void problem(HttpExchange exchange, int status, String title, String detail) throws IOException {
        ObjectNode p = JSON.createObjectNode();
        p.put("type", "about:blank");
        p.put("title", title);
        p.put("status", status);
        p.put("detail", detail);
        send(exchange, status, "application/problem+json", JSON.writeValueAsString(p));
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                usage("unexpected argument '" + args[i] + "'");
            }
            out.put(args[i].substring(2), args[++i]);
        }
        return out;
    }

    private static String require(Map<String, String> a, String name) {
        String v = a.get(name);
        if (v == null || v.isBlank()) {
            usage("--" + name + " is required");
        }
        return v;
    }

    private static void usage(String message) {
        System.err.println("lake-query: " + message + "\nusage: LakeQueryMain --bootstrap HOST:PORT --registry URL [--port N]"
                + " [--parallelism N] [--iceberg-uri JDBC_URL --warehouse URI [--iceberg-user U]] (password in $" + PASSWORD_ENV + ")"
                + " [--maintenance on|off] [--maintenance-interval PT10M] [--snapshot-max-age PT1H] [--retain-last 10]"
                + " [--target-file-size BYTES] [--orphan-min-age PT24H]");
        System.exit(2);
    }
}
