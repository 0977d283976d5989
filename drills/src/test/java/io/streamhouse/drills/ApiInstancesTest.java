package io.streamhouse.drills;

import io.streamhouse.replay.Endpoints;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ApiInstancesTest {

    private static Properties endpoints(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    private static final ApiInstances TWO = ApiInstances.from(endpoints("ingest.url", "http://127.0.0.1:28081",
            "api.instances", "api,api-2", "api.url", "http://127.0.0.1:28082", "api-2.url", "http://127.0.0.1:28083"));

    @Test
    void readsEveryInstanceInOrderAndTheSurvivorsOfOne() {
        assertThat(TWO.ingest()).contains(URI.create("http://127.0.0.1:28081"));
        assertThat(TWO.instances()).extracting(ApiInstances.Instance::component).containsExactly("api", "api-2");
        assertThat(TWO.instance("api").orElseThrow().address()).isEqualTo("127.0.0.1:28082");
        assertThat(TWO.survivors("api")).extracting(ApiInstances.Instance::component).containsExactly("api-2");
        assertThat(TWO.survivors("api-2")).extracting(ApiInstances.Instance::component).containsExactly("api");
    }

    @Test
    void aStackThatWroteNoInstancesHasNoneAndAMissingUrlIsNamed() {
        ApiInstances old = ApiInstances.from(endpoints("kafka.bootstrap.servers", "127.0.0.1:9092"));
        assertThat(old.instances()).isEmpty();
        assertThat(old.ingest()).isEmpty();
        assertThat(old.survivors("api")).isEmpty();
        assertThatThrownBy(() -> ApiInstances.from(endpoints("api.instances", "api,api-2", "api.url", "http://127.0.0.1:28082")))
                .isInstanceOf(Endpoints.EnvironmentException.class).hasMessageContaining("api-2.url");
    }

    @Test
    void theOwnedKeyIsOneTheOwnerServedFresh() {
        ApiInstances.Instance owner = TWO.instance("api").orElseThrow();
        Map<String, ApiInstances.Served> lookedUp = new LinkedHashMap<>();
        lookedUp.put("/v1/parcels/P-1", new ApiInstances.Served("127.0.0.1:28083", false));
        lookedUp.put("/v1/parcels/P-2", new ApiInstances.Served("127.0.0.1:28082", true));
        assertThat(ApiInstances.firstOwnedBy(lookedUp, owner)).as("the survivor's own key, and a stale answer, are not owned").isEmpty();

        lookedUp.put("/v1/parcels/P-3", new ApiInstances.Served("127.0.0.1:28082", false));
        lookedUp.put("/v1/parcels/P-4", new ApiInstances.Served("127.0.0.1:28082", false));
        assertThat(ApiInstances.firstOwnedBy(lookedUp, owner)).contains("/v1/parcels/P-3");
    }
}
