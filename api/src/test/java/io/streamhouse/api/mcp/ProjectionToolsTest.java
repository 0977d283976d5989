package io.streamhouse.api.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.ToolResponse;
import io.streamhouse.api.serving.Answer;
import io.streamhouse.projections.serving.ServingStores;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The projection tools over each kind of answer the query layer gives: a view becomes JSON, an unknown key or an
 * unavailable projection an error result with the reason, bad arguments an error result before any lookup.
 */
class ProjectionToolsTest {
    private final ToolResults results = new ToolResults(new ObjectMapper().findAndRegisterModules());
    private final List<String> asked = new ArrayList<>();

    /** Answers parcel P-1 and vehicle V-1, knows no other key, and is unavailable for alerts. */
    private final ServingProjections projections = new ServingProjections() {
        @Override
        public Result parcel(String parcelId, Instant asOf) {
            asked.add("parcel " + parcelId + " " + asOf);
            return ProjectionQueriesAdapter.of(parcelId.equals("P-1")
                    ? new Answer.Ok<>(Map.of("parcelId", "P-1", "status", "OUT_FOR_DELIVERY"))
                    : new Answer.NotFound<>("no parcel " + parcelId + " is known"));
        }

        @Override
        public Result customer(String customerId, Instant asOf) {
            return new Unknown("no customer " + customerId + " is known");
        }

        @Override
        public Result vehicle(String vehicleId, Instant asOf) {
            asked.add("vehicle " + vehicleId + " " + asOf);
            return new Found(Map.of("vehicleId", vehicleId));
        }

        @Override
        public Result alerts(String before, int limit) {
            asked.add("alerts " + before + " " + limit);
            return ProjectionQueriesAdapter.of(new Answer.Unavailable<>("partition 2 has no replica able to answer"));
        }

        @Override
        public List<Store> stores() {
            return ProjectionQueriesAdapter.STORES;
        }

        @Override
        public Result lookup(String store, String key, Instant asOf) {
            return store.equals(ServingStores.PARCEL_TRACKING) ? parcel(key, asOf) : vehicle(key, asOf);
        }
    };
    private final DomainTools domain = new DomainTools(results, null, projections);
    private final ContextTools context = new ContextTools(results, null, null, null, projections);

    private static String text(ToolResponse response) {
        return ((TextContent) response.content().get(0)).text();
    }

    @Test
    void aViewIsAnsweredAsJson() {
        ToolResponse response = domain.whereIsParcel("P-1", "2026-03-02T09:00:00Z");
        assertThat(response.isError()).isFalse();
        assertThat(text(response)).contains("\"status\":\"OUT_FOR_DELIVERY\"");
        assertThat(asked).containsExactly("parcel P-1 2026-03-02T09:00:00Z");
    }

    @Test
    void anUnknownKeyAndAnUnavailableProjectionAreErrorResultsWithTheReason() {
        ToolResponse unknown = domain.whereIsParcel("P-404", null);
        assertThat(unknown.isError()).isTrue();
        assertThat(text(unknown)).isEqualTo("no parcel P-404 is known");
        assertThat(domain.customerState("c-9", null).isError()).isTrue();

        ToolResponse page = domain.recentAlerts(20, "");
        assertThat(page.isError()).isTrue();
        assertThat(text(page)).contains("partition 2 has no replica");
        assertThat(asked).containsExactly("parcel P-404 null", "alerts null 20");
    }

    @Test
    void badArgumentsAreRefusedBeforeAnyLookup() {
        assertThat(text(domain.vehicleHealth("V 1", null))).contains("malformed vehicleId 'V 1'");
        assertThat(text(domain.vehicleHealth("V-1", "last tuesday"))).contains("malformed asOf 'last tuesday'");
        assertThat(text(domain.recentAlerts(101, null))).contains("limit must be between 1 and 100, was 101");
        assertThat(text(domain.whereIsParcel(null, null))).contains("parcelId is required");
        assertThat(asked).isEmpty();
    }

    @Test
    void queryDataReachesTheProjectionStoresByName() {
        ToolResponse found = context.queryData(ServingStores.VEHICLE_HEALTH, "V-1", null);
        assertThat(found.isError()).isFalse();
        assertThat(text(found)).contains("\"vehicleId\":\"V-1\"");
        ToolResponse unknownStore = context.queryData("alerts-everywhere", "x", null);
        assertThat(unknownStore.isError()).isTrue();
        assertThat(text(unknownStore)).contains("unknown store 'alerts-everywhere'").contains("parcel-tracking")
                .contains("decisions-by-transaction");
        assertThat(text(context.getMetadata(ServingStores.CUSTOMER_STATE))).contains("\"queryWith\"").contains("customer_state");
    }
}
