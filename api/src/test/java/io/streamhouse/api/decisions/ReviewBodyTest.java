package io.streamhouse.api.decisions;

import io.streamhouse.api.mcp.ToolResults;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The review route's body: two fields, every fault naming its field; a refusal's kind picks the status. */
class ReviewBodyTest {

    @Test
    void outcomeAndNoteAreReadAndANullOrAbsentNoteIsNone() throws Exception {
        assertThat(ReviewResource.parse("{\"outcome\":\"LEGITIMATE\",\"note\":\"called the cardholder\"}"))
                .isEqualTo(new ReviewResource.ReviewBody("LEGITIMATE", "called the cardholder"));
        assertThat(ReviewResource.parse("{\"outcome\":\"CONFIRMED_FRAUD\",\"note\":null}"))
                .isEqualTo(new ReviewResource.ReviewBody("CONFIRMED_FRAUD", null));
        assertThat(ReviewResource.parse("{}")).isEqualTo(new ReviewResource.ReviewBody(null, null));
    }

    @Test
    void aReviewerInTheBodyIsAnUnknownFieldNotTheReviewer() {
        assertThatThrownBy(() -> ReviewResource.parse("{\"outcome\":\"LEGITIMATE\",\"reviewer\":\"someone-else\"}"))
                .isInstanceOfSatisfying(ReviewResource.BadBody.class, e -> {
                    assertThat(e.field).isEqualTo("reviewer");
                    assertThat(e.getMessage()).contains("unknown field 'reviewer'");
                });
    }

    @Test
    void malformedJsonAndNonObjectsNameTheBody() {
        for (String body : List.of("{\"outcome\":", "[1]", "", "\"LEGITIMATE\"")) {
            assertThatThrownBy(() -> ReviewResource.parse(body)).as(body)
                    .isInstanceOfSatisfying(ReviewResource.BadBody.class, e -> assertThat(e.field).isEqualTo("body"));
        }
    }

    @Test
    void aValueOfTheWrongTypeNamesItsField() {
        assertThatThrownBy(() -> ReviewResource.parse("{\"outcome\":\"LEGITIMATE\",\"note\":42}"))
                .isInstanceOfSatisfying(ReviewResource.BadBody.class, e -> {
                    assertThat(e.field).isEqualTo("note");
                    assertThat(e.getMessage()).isEqualTo("note must be a string, was number");
                });
    }

    @Test
    void eachKindOfRefusalHasItsStatus() {
        var bad = ReviewResource.problem(new ToolResults.Refusal(ToolResults.Refusal.Kind.INVALID, "outcome", "outcome 'MAYBE' is not one of"), "tx-1");
        assertThat(bad.getStatus()).isEqualTo(400);
        @SuppressWarnings("unchecked")
        var errors = (List<Object>) ((Map<String, Object>) bad.getEntity()).get("errors");
        assertThat(errors).singleElement().hasToString("FieldError[field=outcome, message=outcome 'MAYBE' is not one of]");
        var badId = ReviewResource.problem(new ToolResults.Refusal(ToolResults.Refusal.Kind.INVALID, "transactionId", "malformed"), "tx 1");
        assertThat(((Map<?, ?>) badId.getEntity()).get("errors").toString()).contains("field=id");
        assertThat(ReviewResource.problem(new ToolResults.Refusal(ToolResults.Refusal.Kind.NOT_FOUND, null, "no decision"), "x").getStatus()).isEqualTo(404);
        assertThat(ReviewResource.problem(new ToolResults.Refusal(ToolResults.Refusal.Kind.CONFLICT, null, "decided ALLOW"), "x").getStatus()).isEqualTo(409);
        var unavailable = ReviewResource.problem(new ToolResults.Refusal(ToolResults.Refusal.Kind.UNAVAILABLE, null, "broker down"), "x");
        assertThat(unavailable.getStatus()).isEqualTo(503);
        assertThat(unavailable.getHeaderString("Retry-After")).isEqualTo("1");
    }
}
