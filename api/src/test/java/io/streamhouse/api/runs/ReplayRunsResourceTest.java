package io.streamhouse.api.runs;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.api.ApiConfig;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Without a launcher the api has no results directory: a 404 problem that says what is missing. */
class ReplayRunsResourceTest {

    @Test
    void anApiWithoutAResultsDirectoryAnswers404() {
        ApiConfig none = (ApiConfig) Proxy.newProxyInstance(ApiConfig.class.getClassLoader(), new Class<?>[]{ApiConfig.class},
                (proxy, method, args) -> method.getName().equals("resultsDir") ? Optional.empty() : null);

        Response answer = new ReplayRunsResource(none, new ObjectMapper()).runs(null);

        assertThat(answer.getStatus()).isEqualTo(404);
        assertThat(answer.getMediaType().toString()).isEqualTo("application/problem+json");
        assertThat(((Map<?, ?>) answer.getEntity()).get("detail").toString()).contains("STREAMHOUSE_RESULTS_DIR");
    }
}
