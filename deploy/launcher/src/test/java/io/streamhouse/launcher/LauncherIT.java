package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.control.ChildState;
import io.streamhouse.control.ChildStatus;
import io.streamhouse.control.RunResults;
import io.streamhouse.control.StatusFile;
import io.streamhouse.loadtests.generator.GeneratorCli;
import io.streamhouse.loadtests.score.ScoreCli;
import io.streamhouse.security.Roles;
import io.streamhouse.security.StackTokens;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The stack as a user runs it: {@code ./streamhouse up --fresh --no-demo} with the launcher in its own JVM (as the
 * script starts it) and every part on: platform, CDC, both apps, CEP job, lake and query service. On that one stack,
 * in order:
 * <ol>
 *   <li>the README's path to the CEP job's alerts: {@code ./streamhouse generate --events N --seed S} and
 *   {@code ./streamhouse score} with the script's command lines ({@code --target kafka} added to the generator's) and
 *   their defaults. Score's exit code 0 means every planted anomaly alerted and nothing else (recall 100 %, precision
 *   at least 99.5 % per pattern), read read_committed with Kafka's own consumer. Fewer events than the README's
 *   20,000. This comes first: the generation's event time ends before now, so the job must not have seen the demo's.
 *   Score reads until the alerts stood still for 45 s;</li>
 *   <li>supervision, while score reads: {@code ./streamhouse kill api} and {@code kill sql}; {@code status} shows the api restarting,
 *   then running again with one restart and its last exit, readiness answers again, the query service comes back on
 *   the same URL with its lake maintenance scheduled;</li>
 *   <li>{@code ./streamhouse demo}: the demo's payments authorized synchronously through the real decision topology
 *   and every answer checked against its ground truth, the demo parcel through the projections, one order through
 *   CDC; then a snapshot query over the log and over the sink-landed Iceberg tables agrees with the api's projections
 *   (the demo's decisions per outcome; the CDC demo customer's orders);</li>
 *   <li>{@code down} leaves nothing behind and {@code status} then says so.</li>
 * </ol>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LauncherIT {

    private static final Path DATA = Path.of("target", "launcher-it").toAbsolutePath();
    private static final Path OUT = DATA.resolveSibling("launcher-it.out");
    private static final String DATA_ARG = DATA.toString();
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The card of the browser test's payment (a Luhn-valid test number no demo payment uses). */
    private static final String CONSOLE_CARD = "4000056655665556";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final AtomicInteger QUERIES = new AtomicInteger();
    /** How long the sink may take to land what the log holds (it commits every second). */
    private static final Duration LAKE_CATCH_UP = Duration.ofSeconds(60);

    private static Process launcher;
    private static final List<ProcessHandle> CHILDREN = new ArrayList<>();
    /** score's exit code and output, read while test 2 runs. */
    private static final AtomicReference<CompletableFuture<Map.Entry<Integer, String>>> SCORE = new AtomicReference<>();

    @BeforeAll
    static void up() throws Exception {
        Files.createDirectories(DATA);
        launcher = LauncherJvm.up(DATA, OUT, "--no-demo");
        CHILDREN.addAll(launcher.descendants().toList());
    }

    @AfterAll
    static void leaveNothingBehind() throws Exception {
        if (launcher == null) {
            return;
        }
        // Only if a test failed before down: never leave the launcher or what it started behind (by PID). The children
        // exit by themselves once the launcher is gone (the PostgreSQL watchdog must not be killed: it is what stops
        // the postmaster); what is still alive after that is killed.
        CHILDREN.addAll(launcher.descendants().toList());
        launcher.destroyForcibly();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> CHILDREN.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            CHILDREN.forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** Beside the running stack: a second {@code up} whose Kafka port is taken stops at its preflight, starting nothing. */
    @Test
    @Order(0)
    void upWithAPortInUseStartsNothingAndSaysSo(@org.junit.jupiter.api.io.TempDir Path data) throws Exception {
        try (var taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            var options = LaunchOptions.parse(new String[]{"up", "--data", data.toString(), "--kafka-port",
                    Integer.toString(taken.getLocalPort()), "--registry-port", "0", "--ingest-port", "0", "--api-port", "0"});
            assertThat(Launcher.up(options)).isEqualTo(1);
            assertThat(PidFile.running(data)).as("no launcher recorded").isEmpty();
            assertThat(data.resolve("platform")).as("nothing started").doesNotExist();
        }
    }

    /** Beside the running stack: an {@code up} on a data directory of a newer layout stops before ports and starts nothing. */
    @Test
    @Order(0)
    void upOnADataDirectoryOfANewerLayoutStartsNothingAndSaysSo(@org.junit.jupiter.api.io.TempDir Path data) throws Exception {
        DataLayout.write(data, DataLayout.CURRENT + 1);
        var options = LaunchOptions.parse(new String[]{"up", "--data", data.toString(), "--kafka-port", "0",
                "--registry-port", "0", "--ingest-port", "0", "--api-port", "0"});
        assertThat(Launcher.up(options)).isEqualTo(1);
        assertThat(PidFile.running(data)).as("no launcher recorded").isEmpty();
        assertThat(data.resolve("platform")).as("nothing started").doesNotExist();
        assertThat(java.nio.file.Files.readString(data.resolve(DataLayout.FILE)).strip()).as("left as it was")
                .isEqualTo(Integer.toString(DataLayout.CURRENT + 1));
    }

    @Test
    @Order(1)
    void theReadmesGenerateWritesItsTrafficAndScoreBeginsToRead() throws Exception {
        Path truth = DATA.resolveSibling("launcher-it-gen");
        Output generated = new Output();
        int generate = GeneratorCli.run(new String[]{"--target", "kafka", "--events", "4000", "--seed", "11",
                "--data", DATA_ARG, "--out", truth.toString(), "--no-progress"}, generated.out, generated.out);
        System.out.print(generated);
        assertThat(generate).as("generate's exit code; its output:%n%s", generated).isZero();
        assertThat(generated.toString()).contains("Sent 4,000 to kafka");

        // score reads until the alert topics stood still for 45 s; the supervision test runs meanwhile (it touches
        // neither the CEP job nor its topics), and test 3 takes score's verdict.
        SCORE.set(CompletableFuture.supplyAsync(() -> {
            Output scored = new Output();
            int code = ScoreCli.run(new String[]{"--data", DATA_ARG, "--truth", truth.toString()}, scored.out, scored.out);
            return Map.entry(code, scored.toString());
        }));
    }

    @Test
    @Order(4)
    void theDemoPassesAndSnapshotQueriesAgreeWithTheProjections() throws Exception {
        Output demo = new Output();
        int code = Launcher.demo(options("demo", DATA_ARG, "--demo", "30", "--seed", "7"), demo.out, demo.out);
        System.out.print(demo);
        assertThat(code).as("demo's exit code (0: every leg passed); its output:%n%s", demo).isZero();
        assertThat(demo.toString()).contains("Every answer matched the demo's ground truth and the decision the api recorded.")
                .contains("Parcel as the api answers it: {\"parcelId\":\"P-1042\",\"status\":\"OUT_FOR_DELIVERY\"");
        long t0 = System.nanoTime();
        URI api = URI.create(component("api").endpoint());

        // (1) Decisions per outcome: the api's decision for every demo transaction (read back by the demo) = the
        // log's = the lake's once the sink landed the log up to the same offsets. The generation's decisions are on
        // the same topic: the demo's transaction ids start with "demo-".
        Matcher outcomes = Pattern.compile("30 sent, decisions \\{([^}]*)}").matcher(demo.toString());
        assertThat(outcomes.find()).as("the demo's decisions line in:%n%s", demo).isTrue();
        Map<String, Long> served = new TreeMap<>();
        for (String pair : outcomes.group(1).split(",\\s*")) {
            String[] kv = pair.split("=");
            served.put(kv[0], Long.parseLong(kv[1]));
        }
        assertThat(served.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(30);
        String perOutcome = "SELECT outcome, _partition, COUNT(*), MAX(_offset) FROM %s.streamhouse.payments_transactions_decisions"
                + " WHERE transactionId LIKE 'demo-%%' GROUP BY outcome, _partition";
        JsonNode kafka = rows(api, perOutcome.formatted("kafka"));
        JsonNode lake = awaitLake(api, perOutcome.formatted("lake"), maxOffsets(kafka, 1, 3), 1, 3);
        assertThat(countsPerOutcome(kafka)).as("decisions per outcome over Kafka vs the api's").isEqualTo(served);
        assertThat(countsPerOutcome(lake)).as("decisions per outcome over Iceberg vs the api's").isEqualTo(served);

        // (2) The CDC demo customer's orders: order ids and each order's latest status, as the api's customer card
        // serves them = over the log = over the lake (landed up to the log's offsets).
        Matcher placed = Pattern.compile("(demo-[0-9a-f]{8})-o1 placed").matcher(demo.toString());
        assertThat(placed.find()).as("the CDC demo's order line in:%n%s", demo).isTrue();
        String customer = placed.group(1);
        JsonNode card = awaitCustomer(api, customer);
        Map<String, String> servedOrders = new TreeMap<>();
        card.get("orders").forEach(o -> servedOrders.put(o.get("orderId").asText(), o.get("status").asText()));
        assertThat(servedOrders).as("the api's orders of " + customer).isNotEmpty();
        String orders = "SELECT orderId, _partition, _offset, change.OrderStatusChanged.`current`, change.OrderPlaced.total.amount"
                + " FROM %s.streamhouse.shop_orders WHERE customerId = '" + customer + "'";
        JsonNode kafkaOrders = rows(api, orders.formatted("kafka"));
        // The sink lands each partition in offset order: the customer's newest offsets landed means all of theirs did.
        JsonNode lakeOrders = awaitLake(api, orders.formatted("lake"), maxOffsets(kafkaOrders, 1, 2), 1, 2);
        assertThat(latestStatus(kafkaOrders)).as("orders of " + customer + " over Kafka vs the api's").isEqualTo(servedOrders);
        assertThat(latestStatus(lakeOrders)).as("orders of " + customer + " over Iceberg vs the api's").isEqualTo(servedOrders);
        System.out.printf("LauncherIT: snapshot queries over Kafka and Iceberg agree with the api (decisions %s; %s's orders %s): %d queries in %d ms%n",
                served, customer, servedOrders, QUERIES.get(), (System.nanoTime() - t0) / 1_000_000);

        // (3) The health view's details in status.json: the lag of the decisions app and of the sink read from the log,
        // the decisions' table with a snapshot and an age, the api ready, the maintenance schedule.
        await("health details in status.json").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            JsonNode status = new ObjectMapper().readTree(DATA.resolve(StatusFile.NAME).toFile());
            Map<String, JsonNode> lag = new TreeMap<>();
            status.path("lag").forEach(e -> lag.put(e.path("processor").asText(), e));
            assertThat(lag).containsKeys("api decisions", "api serving", "lake sink", "cep");
            assertThat(lag.get("api decisions").path("records").isIntegralNumber()).as("decisions' lag %s", lag.get("api decisions")).isTrue();
            assertThat(lag.get("lake sink").path("seconds").isNumber()).as("the sink's lag %s", lag.get("lake sink")).isTrue();
            JsonNode decisions = null;
            for (JsonNode t : status.path("lake")) {
                decisions = t.path("table").asText().equals("payments_transactions_decisions") ? t : decisions;
            }
            assertThat(decisions).isNotNull();
            assertThat(decisions.path("snapshotAt").isTextual() && decisions.path("behindSeconds").isNumber()).as("%s", decisions).isTrue();
            assertThat(status.path("freshness").path("ready").asBoolean()).as("%s", status.path("freshness")).isTrue();
            assertThat(status.path("maintenance").path("nextPassAt").isTextual()).as("%s", status.path("maintenance")).isTrue();
        });
        System.out.println("LauncherIT: status.json details: " + Files.readAllLines(DATA.resolve(StatusFile.NAME)).stream()
                .filter(l -> l.startsWith("\"lag\"") || l.startsWith("\"freshness\"") || l.startsWith("\"lake\"") || l.startsWith("\"maintenance\""))
                .toList());
    }

    @Test
    @Order(2)
    void aKilledApiIsRestartedAndStatusFollowsIt() throws Exception {
        assertThat(Launcher.status(options("status", DATA_ARG))).as("status exit code, all running").isZero();
        ChildStatus api = component("api");
        assertThat(api.state()).isEqualTo(ChildState.RUNNING);
        assertThat(api.restarts()).isZero();
        assertThat(component("broker").state()).isEqualTo(ChildState.RUNNING);
        ChildStatus sql = component("sql");
        assertThat(sql.state()).as("the lake's query service is supervised").isEqualTo(ChildState.RUNNING);
        long killed = api.pid();

        assertThat(Launcher.control(options("kill", DATA_ARG, "api"))).isZero();
        // The query service too, in the same wait: both restart side by side.
        assertThat(Launcher.control(options("kill", DATA_ARG, "sql"))).isZero();
        assertThat(ProcessHandle.of(sql.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();

        assertThat(ProcessHandle.of(killed).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> component("api").state() == ChildState.RESTARTING);
        assertThat(Launcher.status(options("status", DATA_ARG))).as("status exit code while the api restarts").isEqualTo(1);
        await("api running again").atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
                .until(() -> component("api").state() == ChildState.RUNNING);
        ChildStatus again = component("api");
        assertThat(again.pid()).isNotEqualTo(killed);
        assertThat(again.restarts()).isEqualTo(1);
        assertThat(again.lastExit()).hasValueSatisfying(e -> assertThat(e.code()).isEqualTo(137));
        assertThat(again.endpoint()).isEqualTo(api.endpoint());
        HttpResponse<Void> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(again.endpoint() + "/q/health/ready")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
        assertThat(ready.statusCode()).isEqualTo(200);
        await("sql running again").atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
                .until(() -> component("sql").state() == ChildState.RUNNING);
        ChildStatus sqlAgain = component("sql");
        assertThat(sqlAgain.pid()).isNotEqualTo(sql.pid());
        assertThat(sqlAgain.restarts()).isEqualTo(1);
        assertThat(sqlAgain.endpoint()).isEqualTo(sql.endpoint());
        // up maintains the lake by default: the restarted service reports its schedule.
        assertThat(Launcher.maintenanceLine(sqlAgain.endpoint())).contains("next pass at");
        assertThat(Launcher.status(options("status", DATA_ARG))).isZero();
        assertThat(Files.readString(OUT))
                .contains("[supervisor] api (pid " + killed + ") died: killed by signal 9 (SIGKILL); restart 1 of 5 in 1000 ms")
                .contains("[supervisor] api restarted (pid " + again.pid() + ", restart 1 in all)")
                .contains("[supervisor] sql (pid " + sql.pid() + ") died: killed by signal 9 (SIGKILL)")
                .contains("lake maintenance every PT10M");
    }

    @Test
    @Order(3)
    void scoreFindsEveryPlantedAnomaly() throws Exception {
        assertThat(SCORE.get()).as("score started by test 1").isNotNull();
        Map.Entry<Integer, String> scored = SCORE.get().get(5, TimeUnit.MINUTES);
        System.out.print(scored.getValue());
        assertThat(scored.getKey()).as("score's exit code (0: every pattern 100 %% recall, >= 99.5 %% precision); its output:%n%s",
                scored.getValue()).isZero();
        assertThat(scored.getValue()).contains("PASS").doesNotContain("  missed ").doesNotContain("  extra ")
                .containsPattern("card testing +[1-9]");
    }

    /** {@code ./streamhouse down} as a user types it: the script signals the launcher itself, without a JVM of its own. */
    /**
     * The console in Chromium against this stack (after the demo, so parcel P-1042 exists): each role sees only its
     * views; an alert arrives live and its withdrawal marks it; the parcel as of an earlier instant; rules-admin
     * publishes a new version and a refused change shows the problem; markup in an id and in a rule's text stays text.
     * Screenshots in target/console-screenshots.
     */
    @Test
    @Order(5)
    void theConsoleInARealBrowser() throws Exception {
        Optional<String> missing = ConsoleBrowser.missing();
        org.junit.jupiter.api.Assumptions.assumeTrue(missing.isEmpty(), missing::get);
        String api = component("api").endpoint();
        String run = Long.toString(System.currentTimeMillis(), 36);
        String markup = "<img src=x onerror=\"window.pwned=1\">";
        List<JsonNode> results;
        try (ConsoleAlerts alerts = new ConsoleAlerts(DATA)) {
            results = ConsoleBrowser.run(api, DATA.resolve("tokens"), Path.of("target", "console-screenshots"), need -> {
                try {
                    return switch (need) {
                        case "alert" -> alerts.send("console-" + run, "P-console-" + run, "late " + markup, null);
                        case "withdrawal" -> alerts.send("console-" + run + "-w", "P-console-" + run, "withdrawn", "console-" + run);
                        case "run" -> {
                            // A drill's record as replay writes it (RunRecord; its own tests cover the writing), with
                            // markup in a failure: what the Replay & drills view reads through GET /v1/replay/runs.
                            Instant at = Instant.now().minusSeconds(90);
                            String record = JSON.writeValueAsString(Map.of("kind", "drill", "command", "drill kill-api",
                                    "arguments", List.of("drill", "kill-api"), "startedAt", at.toString(),
                                    "finishedAt", at.plusSeconds(75).toString(), "durationMs", 75_000, "exitCode", 1, "verdict", "FAIL",
                                    "summary", Map.of("result", "FAIL", "failures", List.of("2 decisions lost " + markup),
                                            "recovery", Map.of("componentBackAfterMs", 4_200, "answeringAgainAfterMs", 6_900),
                                            "decisions", Map.of("lost", 2, "conflicting", 0, "identicalDuplicates", 0),
                                            "rebuild", Map.of("result", "EQUAL", "divergences", 0))));
                            yield RunResults.write(DATA.resolve(RunResults.DIR), at,
                                    "drill-kill-api", record).getFileName().toString();
                        }
                        case "payment" -> {
                            String tx = "console-" + run + "-tx";
                            String outcome = ConsolePayment.authorize(component("ingest").endpoint(),
                                    Files.readString(DATA.resolve("tokens/payments.jwt")).trim(), tx, CONSOLE_CARD);
                            assertThat(outcome).as("EUR 1,500 is held by large-amount-review").isEqualTo("REVIEW");
                            yield tx;
                        }
                        case "payment-offline" -> {
                            // Decided while the browser is offline; answered once the api lists it, so the console's
                            // re-read after it is back online is what can show it.
                            String tx = "console-" + run + "-offline";
                            ConsolePayment.authorize(component("ingest").endpoint(),
                                    Files.readString(DATA.resolve("tokens/payments.jwt")).trim(), tx, CONSOLE_CARD);
                            ConsolePayment.awaitListed(api, Files.readString(DATA.resolve("tokens/reviewer.jwt")).trim(), tx);
                            yield tx;
                        }
                        default -> throw new IllegalArgumentException("the browser test asked for " + need);
                    };
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        System.out.println("console browser test: " + results);
        Map<String, List<String>> nav = new TreeMap<>();
        for (JsonNode r : results) {
            if (r.path("step").asText().equals("nav")) {
                List<String> views = new ArrayList<>();
                r.path("nav").forEach(v -> views.add(v.asText()));
                nav.put(r.path("role").asText(), views);
                assertThat(r.path("address").asText()).as("the token leaves the address bar").doesNotContain("token=");
            }
        }
        assertThat(nav).containsExactlyInAnyOrderEntriesOf(Map.of(
                "reviewer", List.of("Live", "Payments", "Parcels", "Vehicles", "Rules"),
                "ops", List.of("Live", "Parcels", "Vehicles", "Health", "Replay & drills", "Lineage"),
                "rules-admin", List.of("Rules"),
                "analyst", List.of("SQL"),
                "payments", List.of("Payments")));
        JsonNode alert = step(results, "alert");
        assertThat(alert.path("row").asText()).contains("PARCEL_SLA_BREACH").contains("P-console-" + run).contains("late <img src=x");
        assertThat(alert.path("pwned").asBoolean()).as("planted markup ran").isFalse();
        assertThat(alert.path("images").asInt()).as("planted markup became an element").isZero();
        assertThat(step(results, "withdrawal").path("replaced").asText()).isEqualTo("WITHDRAWN by console-" + run + "-w");
        JsonNode decision = step(results, "decision");
        assertThat(decision.path("row").asText()).as("the payment's decision, live").contains(decision.path("tx").asText())
                .contains("REVIEW").containsPattern("large-amount-review v\\d+");
        JsonNode offline = step(results, "offline");
        assertThat(offline.path("banner").asText()).as("the api out of reach, said").contains("did not answer").contains("trying again");
        assertThat(offline.path("row").asText()).as("a payment decided while the browser was offline, listed once back")
                .contains(offline.path("tx").asText());
        assertThat(offline.path("bannerAfter").asText()).as("the banner gone once the api answers").isEmpty();
        JsonNode review = step(results, "review");
        assertThat(review.path("address").asText()).isEqualTo("#/payments/" + review.path("tx").asText());
        assertThat(review.path("activity").asText()).as("the card's recent activity lists the payment").contains(review.path("tx").asText());
        assertThat(review.path("recorded").asText()).as("the review outcome, recorded").startsWith("Recorded LEGITIMATE by ");
        JsonNode parcel = step(results, "parcel");
        assertThat(parcel.path("now").asText()).contains("OUT_FOR_DELIVERY");
        assertThat(parcel.path("then").asText()).as("P-1042 one second after its first scan").contains("RECEIVED_AT_HUB")
                .doesNotContain("OUT_FOR_DELIVERY");
        assertThat(parcel.path("address").asText()).contains("#/parcels/P-1042?asOf=");
        JsonNode id = step(results, "markup-id");
        assertThat(id.path("problem").asText()).contains("Bad parcel id (400)");
        assertThat(id.path("pwned").asBoolean() || id.path("images").asInt() > 0).isFalse();
        JsonNode rule = step(results, "rule");
        assertThat(rule.path("published").asText()).matches("(?s)Published large-amount-review v\\d+\\..*");
        assertThat(rule.path("row").asText()).as("the list once the rules store has the new version")
                .contains("Held for review <img src=x").doesNotContain("\tv1\t");
        assertThat(rule.path("pwned").asBoolean() || rule.path("images").asInt() > 0).isFalse();
        JsonNode versions = step(results, "versions");
        assertThat(versions.path("row").asText()).as("the new version, with who published it")
                .contains("v" + versions.path("newest").asText()).contains(versions.path("who").asText().replaceAll(" \\(.*", ""));
        assertThat(versions.path("changed")).as("the diff of the last two versions").extracting(JsonNode::asText).containsExactly("description");
        assertThat(step(results, "refused").path("problem").asText()).contains("(400)").contains("bogus");
        JsonNode conflict = step(results, "conflict");
        assertThat(conflict.path("first").asText()).as("the other editor's version").matches("(?s)Published large-amount-review v\\d+\\..*");
        assertThat(conflict.path("problem").asText()).as("the editor opened on the older version is refused")
                .contains("Version conflict (409)").contains("read it again");
        JsonNode health = step(results, "health");
        assertThat(health.path("summary").asText()).contains("Launcher pid " + launcher.pid() + " running");
        Map<String, String> states = new TreeMap<>();
        health.path("components").forEach(row -> states.put(row.get(0).asText(), row.get(1).asText()));
        assertThat(states).as("each component's state as status.json has it").containsEntry("api", "RUNNING")
                .containsEntry("broker", "RUNNING").containsEntry("cep", "RUNNING").containsEntry("connect", "RUNNING");
        List<String> checks = new ArrayList<>();
        health.path("checks").forEach(row -> checks.add(row.get(0).asText() + " " + row.get(2).asText()));
        assertThat(checks).as("what the launcher found inside the CEP job and Connect").contains("cep job OK", "connect lake OK");
        List<String> processors = new ArrayList<>();
        health.path("lag").forEach(row -> processors.add(row.get(0).asText()));
        assertThat(processors).as("lag per processor").contains("api decisions", "api serving", "cep", "lake sink");
        health.path("lag").forEach(row -> assertThat(row.get(2).asText()).as("records behind of " + row).matches("\\d+|unknown"));
        assertThat(health.path("lake").size()).as("a row per landed table").isPositive();
        assertThat(health.path("freshness").asText()).contains("Every api instance ready");
        assertThat(health.path("maintenance").asText()).containsAnyOf("Last pass", "No pass yet");
        JsonNode weight = step(results, "weight");
        assertThat(weight.path("scriptStyleAndPageBytes").asLong()).as("script, style and page").isLessThan(500_000);
        System.out.printf("console: first contentful paint %s ms, script + style + page %d bytes%n",
                weight.path("firstContentfulPaintMs"), weight.path("scriptStyleAndPageBytes").asLong());
        JsonNode runs = step(results, "runs");
        assertThat(runs.path("row").asText()).as("the planted drill record").contains("drill kill-api").contains("FAIL")
                .contains("decisions lost 2").contains("componentBack 4200 ms").contains("2 decisions lost <img src=x");
        assertThat(runs.path("pwned").asBoolean() || runs.path("images").asInt() > 0).isFalse();
        JsonNode sql = step(results, "sql");
        assertThat(sql.path("readAt").asText()).as("the answer and the snapshot it was read at")
                .contains("lake.streamhouse.payments_transactions_decisions\t" + sql.path("snapshotId").asText() + "\t").contains("ALLOW");
        assertThat(sql.path("snapshotId").asText()).as("the snapshot id in the api's answer").matches("-?\\d{6,}");
        assertThat(sql.path("address").asText()).startsWith("#/sql?q=SELECT");
        JsonNode keys = step(results, "keyboard");
        assertThat(keys.path("startsIn").asText()).as("an opened view takes the focus").isEqualTo("view");
        assertThat(keys.path("reachedParcels").asBoolean() && keys.path("reachedId").asBoolean() && keys.path("skip").asBoolean())
                .as("the nav link, the id field and the skip link are reached with Tab and Shift+Tab: " + keys).isTrue();
        assertThat(keys.path("address").asText()).isEqualTo("#/parcels/P-1042");
        assertThat(keys.path("state").asText()).contains("OUT_FOR_DELIVERY");
        assertThat(keys.path("afterSkip").asText()).as("the skip link moves the focus into the view").isEqualTo("view");
        assertThat(keys.path("nextAfterSkip").path("inView").asBoolean()).as("Tab after the skip link stays in the view").isTrue();
        assertThat(keys.path("withoutOutline")).as("focused without a visible outline").isEmpty();
        assertThat(step(results, "phone").path("horizontalOverflowPx").asInt()).as("no sideways scrolling at 390 px").isLessThanOrEqualTo(0);
        assertThat(step(results, "done").path("pageErrors")).as("script errors in the page").isEmpty();
    }

    private static JsonNode step(List<JsonNode> results, String step) {
        return results.stream().filter(r -> r.path("step").asText().equals(step)).findFirst()
                .orElseThrow(() -> new AssertionError("the browser test reported no " + step + ": " + results));
    }

    @Test
    @Order(6)
    void downLeavesNothingBehind() throws Exception {
        CHILDREN.addAll(launcher.descendants().toList());
        Path script = Path.of(System.getProperty("streamhouse.home"), "streamhouse");
        Process down = new ProcessBuilder("bash", script.toString(), "down", "--data", DATA_ARG).redirectErrorStream(true).start();
        String said = new String(down.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(down.waitFor(70, TimeUnit.SECONDS)).isTrue();
        assertThat(down.exitValue()).as("down's exit code; its output:%n%s", said).isZero();
        assertThat(said).isEqualTo("Stopping Streamhouse (pid " + launcher.pid() + ") ...\nStopped.\n");
        // The script saw it exit (or a zombie); this JVM, its parent, reaps it.
        assertThat(launcher.waitFor(10, TimeUnit.SECONDS)).as("the launcher exited").isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> CHILDREN.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(Launcher.status(options("status", DATA_ARG))).as("status exit code once down").isEqualTo(3);
    }

    private static LaunchOptions options(String command, String data, String... more) {
        List<String> all = new ArrayList<>(List.of(command));
        all.addAll(List.of(more));
        all.addAll(List.of("--data", data));
        return LaunchOptions.parse(all.toArray(String[]::new));
    }

    private static ChildStatus component(String name) {
        Optional<StatusFile.Snapshot> snapshot = StatusFile.read(DATA.resolve(StatusFile.NAME));
        return snapshot.orElseThrow().components().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    /** Sums column 2 (a count) per column 0 (the outcome). */
    private static Map<String, Long> countsPerOutcome(JsonNode rows) {
        Map<String, Long> counts = new TreeMap<>();
        rows.forEach(r -> counts.merge(r.get(0).asText(), r.get(2).asLong(), Long::sum));
        return counts;
    }

    /** The highest offset per partition (columns {@code partition} and {@code offset} of each row). */
    private static Map<Integer, Long> maxOffsets(JsonNode rows, int partition, int offset) {
        Map<Integer, Long> max = new TreeMap<>();
        rows.forEach(r -> max.merge(r.get(partition).asInt(), r.get(offset).asLong(), Math::max));
        return max;
    }

    /** Order id → the status its newest event leaves (placed, a status change, else cancelled), as the projection folds. */
    private static Map<String, String> latestStatus(JsonNode rows) {
        Map<String, JsonNode> newest = new TreeMap<>();
        rows.forEach(r -> newest.merge(r.get(0).asText(), r, (a, b) -> b.get(2).asLong() > a.get(2).asLong() ? b : a));
        Map<String, String> status = new TreeMap<>();
        newest.forEach((order, r) -> status.put(order, !r.get(3).isNull() ? r.get(3).asText() : !r.get(4).isNull() ? "PLACED" : "CANCELLED"));
        return status;
    }

    /** Polls the lake query until its rows' highest offset per partition reaches the log's; its last rows. */
    private static JsonNode awaitLake(URI api, String sql, Map<Integer, Long> logEnd, int partition, int offset) {
        AtomicReference<JsonNode> last = new AtomicReference<>();
        // back-off between polls: each query is a Flink job
        await("the lake lands the log's offsets " + logEnd).atMost(LAKE_CATCH_UP)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    JsonNode rows = rows(api, sql);
                    last.set(rows);
                    Map<Integer, Long> landed = maxOffsets(rows, partition, offset);
                    return logEnd.entrySet().stream().allMatch(e -> landed.getOrDefault(e.getKey(), -1L) >= e.getValue());
                });
        return last.get();
    }

    /** The api's customer card once it shows an order (the projection folds shop.orders shortly after the demo saw it). */
    private static JsonNode awaitCustomer(URI api, String customer) {
        AtomicReference<JsonNode> card = new AtomicReference<>();
        await("GET /v1/customers/" + customer + " shows an order").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(api.resolve("/v1/customers/" + customer))
                            .header("Authorization", "Bearer " + StackTokens.read(DATA, Roles.REVIEWER))
                            .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() != 200) {
                        return false;
                    }
                    card.set(JSON.readTree(r.body()));
                    return card.get().path("orders").size() > 0;
                });
        return card.get();
    }

    private static JsonNode rows(URI api, String sql) throws Exception {
        QUERIES.incrementAndGet();
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(api.resolve("/v1/sql")).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + StackTokens.read(DATA, Roles.ANALYST))
                .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("sql", sql).toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(sql + " → " + r.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("truncated").asBoolean()).as(sql + " truncated").isFalse();
        return body.get("rows");
    }

    /** A command's standard output and error, together. */
    private static final class Output {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        @Override
        public String toString() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
