package io.streamhouse.api.mcp;

import java.time.Instant;
import java.util.List;

/**
 * What the MCP tools need from the serving projections (parcel tracking, customer state, vehicle health, alert
 * feed): one answer per key, now or as of an instant, with its freshness inside the view. Kept as an interface so the
 * tools do not depend on how the projections are queried (locally, or forwarded to the instance owning the key).
 */
public interface ServingProjections {

    /** One answer: the view (serialised as JSON for the agent), an unknown key, or nobody able to answer now. */
    sealed interface Result permits Found, Unknown, Unavailable {
    }

    record Found(Object view) implements Result {
    }

    record Unknown(String message) implements Result {
    }

    record Unavailable(String message) implements Result {
    }

    /** A store {@code queryData} can look up by key, as {@code getMetadata} describes it. */
    record Store(String name, String holds, String key, String value, String domainTool) {
    }

    Result parcel(String parcelId, Instant asOf);

    Result customer(String customerId, Instant asOf);

    Result vehicle(String vehicleId, Instant asOf);

    /** A page of the alert feed, newest first; {@code before} is the cursor of a previous page or null. */
    Result alerts(String before, int limit);

    /** The projection stores this build serves (empty if none). */
    List<Store> stores();

    /** A key lookup on one of {@link #stores()}. */
    Result lookup(String store, String key, Instant asOf);
}
