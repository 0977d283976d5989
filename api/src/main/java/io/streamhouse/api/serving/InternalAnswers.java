package io.streamhouse.api.serving;

import io.streamhouse.projections.serving.ServingStores;
import org.apache.avro.specific.SpecificRecord;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The answers of the instance-to-instance endpoints, with no framework (the REST resource and the two-instance test
 * serve them alike). Empty means "cannot answer here" (HTTP 503/404 on the wire), which makes the asking instance
 * try the next replica.
 */
public final class InternalAnswers {

    public static Optional<byte[]> state(KeyRouter router, String store, String key, String asOf) {
        if (router == null || !ServingStreamsStores.KEYED.contains(store)) {
            return Optional.empty();
        }
        Instant at;
        try {
            at = asOf == null ? null : Instant.parse(asOf);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
        Lookup<SpecificRecord> lookup = router.localForForwarded(store, key, at);
        return lookup instanceof Lookup.Unavailable ? Optional.empty() : Optional.of(StateCodec.encode(lookup));
    }

    public static Optional<byte[]> feed(KeyRouter router, String store, String before, String limit, String partitions) {
        if (router == null || !FEEDS.contains(store) || limit == null || partitions == null) {
            return Optional.empty();
        }
        try {
            int n = Integer.parseInt(limit);
            Set<Integer> wanted = new TreeSet<>();
            for (String p : partitions.split(",")) {
                wanted.add(Integer.parseInt(p));
            }
            StateCodec.Page<SpecificRecord> page = router.localFeed(store, before, n, wanted);
            return Optional.of(StateCodec.encodePage(page.entries(), page.missingPartitions()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The stores read as feeds, newest first. */
    static final Set<String> FEEDS = Set.of(ServingStores.ALERT_FEED, ServingStores.DECISION_FEED);

    /** The stores looked up by key (all but the feeds). */
    static final class ServingStreamsStores {
        static final Set<String> KEYED = Set.of(ServingStores.PARCEL_TRACKING, ServingStores.VEHICLE_HEALTH,
                ServingStores.SUBJECT_ALERTS, ServingStores.CUSTOMER_STATE, ServingStores.RULE_HISTORY);

        private ServingStreamsStores() {
        }
    }

    private InternalAnswers() {
    }
}
