package io.streamhouse.api.serving;

import io.streamhouse.api.http.Problems;
import io.streamhouse.domain.pii.CardNumbers;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.apache.kafka.streams.KafkaStreams;

import java.util.List;

/**
 * {@code GET /v1/cards/{cardToken}/activity}: a card's recent authorization requests with their outcomes, from the
 * decision topology's {@code card-activity} store, on whichever instance holds the card ({@link CardActivityRouting}),
 * each outcome from whichever instance holds that payment's decision ({@link DecisionOutcomes}).
 */
@Path("/v1/cards/{cardToken}/activity")
@Produces({MediaType.APPLICATION_JSON, Problems.MEDIA_TYPE})
public class CardActivityResource {
    private final KafkaStreams decisions;
    private final ServingStreams serving;

    public CardActivityResource(KafkaStreams decisions, ServingStreams serving) {
        this.decisions = decisions;
        this.serving = serving;
    }

    @GET
    @RolesAllowed(Roles.REVIEWER)
    public CardActivityView activity(@PathParam("cardToken") String cardToken) {
        validate(cardToken);
        KeyRouter router = serving.router();
        String self = router == null ? "local" : router.self().host() + ":" + router.self().port();
        CardActivityRouting.Found found = find(cardToken, decisions, self, () -> router == null ? List.of() : router.peers(),
                router == null ? (h, p) -> java.util.Optional.empty() : router.forwarder());
        if (found instanceof CardActivityRouting.NotHeld notHeld) {
            throw new WebApplicationException(Response.fromResponse(Problems.of(503, "Not available",
                    notHeld.reason() + " (decision streams " + decisions.state() + ")")).header("Retry-After", "1").build());
        }
        CardActivityView view = ((CardActivityRouting.Held) found).view();
        if (view.activity().isEmpty()) {
            throw new WebApplicationException(Problems.of(404, "No activity", "card " + cardToken
                    + " has no authorization request in the last 24 hours of its activity (unknown card, or none kept)"));
        }
        return view;
    }

    /**
     * The card's activity from whichever instance holds it, each payment's outcome from whichever holds its decision;
     * with no framework, so the two-instance test runs the same code.
     *
     * @param self  this instance's {@code host:port}, as the view names who answered
     * @param peers the other instances
     */
    public static CardActivityRouting.Found find(String cardToken, KafkaStreams decisions, String self,
                                                 java.util.function.Supplier<List<org.apache.kafka.streams.state.HostInfo>> peers,
                                                 Forwarder forwarder) {
        CardActivityRouting.Found found = new CardActivityRouting(new CardActivityReplica(decisions, self), peers, forwarder).find(cardToken);
        if (found instanceof CardActivityRouting.Held held && !held.view().activity().isEmpty()) {
            var outcomes = new DecisionOutcomes(new DecisionReplica(decisions), peers, forwarder)
                    .find(held.view().activity().stream().map(CardActivityView.Entry::transactionId).toList());
            return new CardActivityRouting.Held(held.view().withOutcomes(outcomes));
        }
        return found;
    }

    /** A card token, never a card number: a PAN in a URL would land in logs (docs/pii.md). */
    static void validate(String cardToken) {
        if (CardNumbers.contains(cardToken)) {
            throw new WebApplicationException(Problems.of(400, "Bad card token", "a card number is not a card token: "
                    + "look a card up by the token the payment carries",
                    List.of(new Problems.FieldError("cardToken", "is a card number, not a token"))));
        }
        if (!ServingResource.isId(cardToken)) {
            throw new WebApplicationException(Problems.of(400, "Bad card token", "cardToken must be 1-64 letters, digits or . _ : -",
                    List.of(new Problems.FieldError("cardToken", "invalid card token"))));
        }
    }
}
