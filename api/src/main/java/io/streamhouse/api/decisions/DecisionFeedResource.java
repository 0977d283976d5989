package io.streamhouse.api.decisions;

import io.streamhouse.api.http.Problems;
import io.streamhouse.api.serving.Answer;
import io.streamhouse.api.serving.FeedPaging;
import io.streamhouse.api.serving.ProjectionQueries;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;

/**
 * {@code GET /v1/decisions}: the recent payment decisions, newest first by when each was decided, one page at a time,
 * as {@code /v1/decisions/stream} sends them ({@link LiveDecisionView}, same roles). What a live view re-reads after
 * its stream overflowed or dropped. Read from the serving projections' decision feed (the newest 1,000 decisions of
 * each partition), gathered from every instance holding a partition; a page lacking some says which
 * ({@code missingPartitions}, {@code partial}).
 */
@Path("/v1/decisions")
@Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
public class DecisionFeedResource {

    private final ProjectionQueries queries;

    public DecisionFeedResource(ProjectionQueries queries) {
        this.queries = queries;
    }

    /**
     * @param nextCursor        pass as {@code before} for the next (older) page; null when this page is the last
     * @param missingPartitions partitions of {@code payments.transactions.decisions} no instance answered for
     */
    public record DecisionPage(List<LiveDecisionView> decisions, String nextCursor, List<Integer> missingPartitions,
                               boolean partial) {
    }

    @GET
    @RolesAllowed({Roles.REVIEWER, Roles.OPS})
    public DecisionPage decisions(@QueryParam("before") String before, @QueryParam("limit") @DefaultValue("50") String limit) {
        int n = FeedPaging.limit(limit);
        FeedPaging.before(before);
        Answer<ProjectionQueries.FeedPage<TransactionDecision>> answer = queries.decisions(before, n);
        if (answer instanceof Answer.Ok<ProjectionQueries.FeedPage<TransactionDecision>> ok) {
            var page = ok.view();
            return new DecisionPage(page.entries().stream().map(LiveDecisionView::of).toList(), page.nextCursor(),
                    page.missingPartitions(), !page.missingPartitions().isEmpty());
        }
        String why = answer instanceof Answer.Unavailable<?> u ? u.message() : ((Answer.NotFound<?>) answer).message();
        throw new WebApplicationException(Response.fromResponse(Problems.of(503, "Not available", why))
                .header("Retry-After", "1").build());
    }
}
