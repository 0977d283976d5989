package io.streamhouse.api.serving;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.state.HostInfo;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Finds the instance holding a card's {@code card-activity} partition. That store belongs to the decision application,
 * whose Streams metadata names no hosts (it runs without {@code application.server}: under a random HTTP port it
 * cannot know its own), so the owner is found by asking: this instance's active replica, then each other instance's
 * (the serving application's metadata lists them; each answers only from its own replica and never forwards), then a
 * standby replica here or elsewhere, marked stale. With one instance that is one local read.
 */
public final class CardActivityRouting {
    public static final String INTERNAL_PATH = "/internal/v1/cards/";
    private static final ObjectMapper JSON = new ObjectMapper().findAndRegisterModules()
            .disable(com.fasterxml.jackson.databind.SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    /** One instance's own replica of the card's partition: the view (empty activity: the card is unknown), or not held. */
    public interface LocalReplica {
        /** @param standbyToo false: only an active replica answers; true: a standby does too (the view says stale) */
        Optional<CardActivityView> read(String cardToken, boolean standbyToo);
    }

    /** What a card lookup found: the view, or nobody holding the card's partition answered (with who was asked). */
    public sealed interface Found permits Held, NotHeld {
    }

    public record Held(CardActivityView view) implements Found {
    }

    public record NotHeld(String reason) implements Found {
    }

    private final LocalReplica local;
    private final Supplier<List<HostInfo>> peers;
    private final Forwarder forwarder;

    /** @param peers the other instances (not this one), empty when routing is off */
    public CardActivityRouting(LocalReplica local, Supplier<List<HostInfo>> peers, Forwarder forwarder) {
        this.local = local;
        this.peers = peers;
        this.forwarder = forwarder;
    }

    public Found find(String cardToken) {
        List<String> tried = new ArrayList<>();
        for (boolean standbyToo : new boolean[]{false, true}) {
            Optional<CardActivityView> here = local.read(cardToken, standbyToo);
            if (here.isPresent()) {
                return new Held(here.get());
            }
            tried.add((standbyToo ? "any replica" : "active") + " here");
            for (HostInfo peer : peers.get()) {
                Optional<CardActivityView> there = forwarder.get(peer, INTERNAL_PATH
                        + URLEncoder.encode(cardToken, StandardCharsets.UTF_8) + "/activity" + (standbyToo ? "?standby=true" : ""))
                        .flatMap(CardActivityRouting::decode);
                if (there.isPresent()) {
                    return new Held(there.get());
                }
                tried.add((standbyToo ? "any replica" : "active") + " on " + peer.host() + ":" + peer.port());
            }
        }
        return new NotHeld("no instance holds partition " + partitionOf(cardToken) + " of the card activity: asked "
                + String.join(", ", tried));
    }

    /** The card's partition of {@code payments.transactions.requested} (the default partitioner, keyed by card token). */
    public static int partitionOf(String cardToken) {
        return Utils.toPositive(Utils.murmur2(Serdes.String().serializer().serialize(null, cardToken)))
                % Topics.TRANSACTION_REQUESTS.partitions();
    }

    public static byte[] encode(CardActivityView view) {
        try {
            return JSON.writeValueAsBytes(view);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static Optional<CardActivityView> decode(byte[] body) {
        try {
            return Optional.of(JSON.readValue(body, CardActivityView.class));
        } catch (IOException e) {
            return Optional.empty(); // an answer from another build: ask the next one
        }
    }
}
