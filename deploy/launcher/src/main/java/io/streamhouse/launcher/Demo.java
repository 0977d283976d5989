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
 * The demo {@code up} runs once the stack is ready, and {@code ./streamhouse demo} runs again in the running launcher:
 * card payments authorized synchronously and checked against the demo's ground truth and the decisions the api
 * recorded, a parcel out for delivery on a truck, one order through change data capture, one snapshot SQL query. Each
 * leg prints what it did; a leg that fails says what to look at. One demo runs at a time.
 */
final class Demo {

    private final PrintStream out;

    private Demo(PrintStream out) {
        this.out = out;
    }

    /**
     * Every leg this stack runs ({@code cdc}: it captures the shop database), {@code count} payments from {@code seed},
     * printed to {@code out}; true if each passed.
     */
    static boolean run(RunningStack stack, boolean cdc, int count, long seed, PrintStream out) throws Exception {
        synchronized (Demo.class) {
            Demo demo = new Demo(out);
            boolean ok = demo.payments(stack, count, seed);
            if (cdc) {
                ok &= demo.cdc(stack);
            }
            if (stack.sql != null) {
                ok &= demo.sql(stack);
            }
            return ok;
        }
    }

    private boolean payments(RunningStack stack, int count, long seed) throws IOException, InterruptedException {
        Instant now = Instant.now();
        long run = now.getEpochSecond();
        out.printf("Demo load: %d card payments (seed %d, run %s) authorized synchronously through ingest, decisions read back from the api ...%n",
                count, seed, Long.toString(run, 36));
        DemoLoad.Result result = DemoLoad.run(stack.ingest.url(), stack.api.url(), seed, run, count,
                now.minusSeconds(60), Duration.ofSeconds(60), stack.tokens.get(Roles.PAYMENTS));
        out.printf("  %d sent, decisions %s in %.1f s%n", result.sent(), result.outcomes(), result.elapsed().toMillis() / 1000.0);
        var sorted = result.authorizeMillis().stream().sorted().toList();
        if (!sorted.isEmpty()) {
            out.printf("  authorize round trip as the demo client saw it: median %d ms, p99 %d ms, max %d ms, first %d ms (one sequential client; not a benchmark)%n",
                    sorted.get(sorted.size() / 2), sorted.get(Math.max(0, (int) Math.ceil(sorted.size() * 0.99) - 1)),
                    sorted.get(sorted.size() - 1), result.authorizeMillis().get(0));
        }
        if (result.example() != null) {
            out.println("  Example decision: " + new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(result.example())
                    .replace("\n", "\n  "));
        }
        if (!result.allAsExpected()) {
            out.println("  Decisions that differ from the demo's ground truth: " + result.mismatches());
            return false;
        }
        out.println("  Every answer matched the demo's ground truth and the decision the api recorded.");
        out.println("Demo fleet: truck-7 reports its position, parcel P-1042 goes out for delivery on it ...");
        var parcel = DemoFleet.run(stack.ingest.url(), stack.api.url(), Instant.now().minusSeconds(60), Duration.ofSeconds(60),
                stack.tokens.get(Roles.DEVICE), stack.tokens.get(Roles.OPS));
        if (parcel == null) {
            out.println("  The api did not show parcel P-1042 out for delivery within 60 s.");
            return false;
        }
        out.println("  Parcel as the api answers it: " + new ObjectMapper().writeValueAsString(parcel));
        return true;
    }

    private boolean cdc(RunningStack stack) throws Exception {
        out.println("Change data capture: one order written to the shop database, awaited on shop.orders ...");
        CdcDemo.Result r = CdcDemo.run(stack.platform, Duration.ofSeconds(60));
        if (!r.arrived()) {
            out.println("  Order " + r.orderId() + " did not arrive as OrderPlaced within " + r.took().toSeconds()
                    + " s: see logs/ingest.log and platform/connect/connect.log");
            return false;
        }
        out.printf("  %s placed, total EUR %s, on shop.orders %d ms after the commit (one order; not a benchmark)%n",
                r.orderId(), r.total().toPlainString(), r.took().toMillis());
        return true;
    }

    /** One snapshot query through the api: decisions per outcome over the log, as the demo left it. */
    private boolean sql(RunningStack stack) throws IOException, InterruptedException {
        String sql = "SELECT outcome, COUNT(*) AS decisions FROM kafka.streamhouse.payments_transactions_decisions GROUP BY outcome";
        out.println("Snapshot SQL through the api: " + sql + " ...");
        var mapper = new ObjectMapper();
        var request = java.net.http.HttpRequest.newBuilder(stack.api.url().resolve("/v1/sql"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + stack.tokens.get(Roles.ANALYST))
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(mapper.createObjectNode().put("sql", sql).toString())).build();
        long t0 = System.nanoTime();
        var response = java.net.http.HttpClient.newHttpClient().send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (response.statusCode() != 200) {
            out.println("  The api answered " + response.statusCode() + ": " + response.body());
            return false;
        }
        var body = mapper.readTree(response.body());
        out.println("  rows " + body.get("rows") + ", read at end offsets " + body.get("readAt").get("kafka").findValuesAsText("endOffset")
                + " of its partitions, in " + ms + " ms (one query; not a benchmark)");
        return true;
    }

}
