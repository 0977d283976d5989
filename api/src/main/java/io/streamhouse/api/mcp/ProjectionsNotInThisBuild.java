package io.streamhouse.api.mcp;

import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.List;

/**
 * The serving projections are not part of this build: every projection tool says so in an error result instead of
 * inventing an answer. Replaced by an adapter over the projections' query service where they exist.
 */
@ApplicationScoped
public class ProjectionsNotInThisBuild implements ServingProjections {
    static final String MESSAGE = "projection not available in this build";

    @Override
    public Result parcel(String parcelId, Instant asOf) {
        return new Unavailable(MESSAGE);
    }

    @Override
    public Result customer(String customerId, Instant asOf) {
        return new Unavailable(MESSAGE);
    }

    @Override
    public Result vehicle(String vehicleId, Instant asOf) {
        return new Unavailable(MESSAGE);
    }

    @Override
    public Result alerts(String before, int limit) {
        return new Unavailable(MESSAGE);
    }

    @Override
    public List<Store> stores() {
        return List.of();
    }

    @Override
    public Result lookup(String store, String key, Instant asOf) {
        return new Unavailable(MESSAGE);
    }
}
