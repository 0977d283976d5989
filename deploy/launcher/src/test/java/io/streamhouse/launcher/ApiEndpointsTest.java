package io.streamhouse.launcher;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code up} adds to endpoints.properties for the drills, and the standby count it passes with several instances. */
class ApiEndpointsTest {

    @Test
    void everyApiInstanceIsListedInstanceOneFirstWithItsUrl() {
        Map<String, String> p = EndpointsFile.apiEndpoints(URI.create("http://127.0.0.1:28081"),
                List.of(URI.create("http://127.0.0.1:28082"), URI.create("http://127.0.0.1:28083")));

        assertThat(p).containsExactly(Map.entry("ingest.url", "http://127.0.0.1:28081"),
                Map.entry("api.url", "http://127.0.0.1:28082"), Map.entry("api-2.url", "http://127.0.0.1:28083"),
                Map.entry("api.instances", "api,api-2"));
        assertThat(EndpointsFile.apiEndpoints(null, List.of())).as("before the apps run").isEmpty();
    }

    @Test
    void everyIngestInstanceIsListedAndTheOthersUrlsToo() {
        assertThat(EndpointsFile.ingestEndpoints(List.of(URI.create("http://127.0.0.1:28081"), URI.create("http://127.0.0.1:41234"))))
                .containsExactly(Map.entry("ingest-2.url", "http://127.0.0.1:41234"), Map.entry("ingest.instances", "ingest,ingest-2"));
        assertThat(EndpointsFile.ingestEndpoints(List.of(URI.create("http://127.0.0.1:28081"))))
                .as("one instance: its URL is ingest.url").containsExactly(Map.entry("ingest.instances", "ingest"));
        assertThat(EndpointsFile.ingestEndpoints(List.of())).as("before the apps run").isEmpty();
    }

    @Test
    void standbyReplicasAreNeverFewerThanOne() {
        assertThat(AppsStep.atLeastOne(null)).isEqualTo(1);
        assertThat(AppsStep.atLeastOne("0")).isEqualTo(1);
        assertThat(AppsStep.atLeastOne(" 2 ")).isEqualTo(2);
        assertThat(AppsStep.atLeastOne("many")).isEqualTo(1);
    }
}
