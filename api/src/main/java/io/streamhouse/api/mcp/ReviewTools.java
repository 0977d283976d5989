package io.streamhouse.api.mcp;

import io.quarkiverse.mcp.server.Tool;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;

/** The action tool: an agent's review verdict goes back into the decision flow as an event. */
@AuditedTools
public class ReviewTools {
    private final ToolResults results;
    private final ReviewRecorder recorder;

    public ReviewTools(ToolResults results, ReviewRecorder recorder) {
        this.results = results;
        this.recorder = recorder;
    }

    @RolesAllowed({Roles.AGENT, Roles.REVIEWER})
    @Tool(name = "record_review_outcome", description = "Records the outcome of reviewing a payment that was held for "
            + "REVIEW. CONFIRMED_FRAUD flags the card, so its next payments are BLOCKed (by the flagged-subject rule, "
            + "the reason naming this review); LEGITIMATE is recorded and blocks nothing. Refused unless the "
            + "transaction exists and was decided REVIEW. Written as a ReviewOutcomeRecorded event on "
            + "payments.transactions.reviews; retrying the same call is safe (same event id).",
            annotations = @Tool.Annotations(readOnlyHint = false, destructiveHint = false, idempotentHint = true,
                    openWorldHint = false))
    public ToolResponse recordReviewOutcome(
            @ToolArg(name = "transactionId", description = "the payment held for review") String transactionId,
            @ToolArg(name = "outcome", description = "CONFIRMED_FRAUD or LEGITIMATE") String outcome,
            @ToolArg(name = "reviewer", description = "who reviewed: a person's or an agent's name") String reviewer,
            @ToolArg(name = "note", description = "optional note, up to 1000 characters", required = false) String note) {
        return results.guard("record_review_outcome", () -> results.json(recorder.record(transactionId, outcome, reviewer, note)));
    }
}
