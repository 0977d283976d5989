package io.streamhouse.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.loadtests.demo.DemoFleet;
import io.streamhouse.loadtests.demo.DemoLoad;
import io.streamhouse.security.Roles;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;

/**
 * The demo {@code up} runs once the stack is ready: card payments authorized synchronously and checked against the
 * demo's ground truth and the decisions the api recorded, a parcel out for delivery on a truck, one order through
 * change data capture, one snapshot SQL query. Each leg prints what it did; a leg that fails says what to look at.
 */
final class Demo {
    private static final PrintStream OUT = System.out;

    /** Every leg this stack runs; true if each passed. */
    static boolean run(RunningStack stack, LaunchOptions options) throws Exception {
        boolean ok = payments(stack, options);
        if (options.runs(LaunchOptions.Part.CDC)) {
            ok &= cdc(stack);
        }
        if (stack.sql != null) {
            ok &= sql(stack);
        }
        return ok;
    }

    private static boolean payments(RunningStack stack, LaunchOptions options) throws IOException, InterruptedException {
        OUT.printf("Demo load: %d card payments (seed %d) authorized synchronously through ingest, decisions read back from the api ...%n",
                options.demoCount(), options.seed());
        DemoLoad.Result result = DemoLoad.run(stack.ingest.url(), stack.api.url(), options.seed(), options.demoCount(),
                Instant.now().minusSeconds(60), Duration.ofSeconds(60), stack.tokens.get(Roles.PAYMENTS));
        stack.demoDecisions = result;
        OUT.printf("  %d sent, decisions %s in %.1f s%n", result.sent(), result.outcomes(), result.elapsed().toMillis() / 1000.0);
        var sorted = result.authorizeMillis().stream().sorted().toList();
        if (!sorted.isEmpty()) {
            OUT.printf("  authorize round trip as the demo client saw it: median %d ms, max %d ms (one sequential client; not a benchmark)%n",
                    sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
        }
        if (result.example() != null) {
            OUT.println("  Example decision: " + new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(result.example())
                    .replace("\n", "\n  "));
        }
        if (!result.allAsExpected()) {
            OUT.println("  Decisions that differ from the demo's ground truth: " + result.mismatches());
            return false;
        }
        OUT.println("  Every answer matched the demo's ground truth and the decision the api recorded.");
        OUT.println("Demo fleet: truck-7 reports its position, parcel P-1042 goes out for delivery on it ...");
        var parcel = DemoFleet.run(stack.ingest.url(), stack.api.url(), Instant.now().minusSeconds(60), Duration.ofSeconds(60),
                stack.tokens.get(Roles.DEVICE), stack.tokens.get(Roles.OPS));
        if (parcel == null) {
            OUT.println("  The api did not show parcel P-1042 out for delivery within 60 s.");
            return false;
        }
        OUT.println("  Parcel as the api answers it: " + new ObjectMapper().writeValueAsString(parcel));
        return true;
    }

    private static boolean cdc(RunningStack stack) throws Exception {
        OUT.println("Change data capture: one order written to the shop database, awaited on shop.orders ...");
        CdcDemo.Result r = CdcDemo.run(stack.platform, Duration.ofSeconds(60));
        stack.cdcCustomer = r.customerId();
        if (!r.arrived()) {
            OUT.println("  Order " + r.orderId() + " did not arrive as OrderPlaced within " + r.took().toSeconds()
                    + " s: see logs/ingest.log and platform/connect/connect.log");
            return false;
        }
        OUT.printf("  %s placed, total EUR %s, on shop.orders %d ms after the commit (one order; not a benchmark)%n",
                r.orderId(), r.total().toPlainString(), r.took().toMillis());
        return true;
    }

    /** One snapshot query through the api: decisions per outcome over the log, as the demo left it. */
    private static boolean sql(RunningStack stack) throws IOException, InterruptedException {
        String sql = "SELECT outcome, COUNT(*) AS decisions FROM kafka.streamhouse.payments_transactions_decisions GROUP BY outcome";
        OUT.println("Snapshot SQL through the api: " + sql + " ...");
        var mapper = new ObjectMapper();
        var request = java.net.http.HttpRequest.newBuilder(stack.api.url().resolve("/v1/sql"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + stack.tokens.get(Roles.ANALYST))
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(mapper.createObjectNode().put("sql", sql).toString())).build();
        long t0 = System.nanoTime();
        var response = java.net.http.HttpClient.newHttpClient().send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (response.statusCode() != 200) {
            OUT.println("  The api answered " + response.statusCode() + ": " + response.body());
            return false;
        }
        var body = mapper.readTree(response.body());
        OUT.println("  rows " + body.get("rows") + ", read at end offsets " + body.get("readAt").get("kafka").findValuesAsText("endOffset")
                + " of its partitions, in " + ms + " ms (one query; not a benchmark)");
        return true;
    }

    private Demo() {
    }
}
