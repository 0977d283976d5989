package io.streamhouse.flinkcluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The requests the client sends, as a stub of the JobManager's REST API receives them, and how it reads the answers. */
class FlinkRestClientTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpServer server;
    private FlinkRestClient client;
    /** Path (with query) → what the stub answers: status and body. */
    private final Map<String, Object[]> answers = new ConcurrentHashMap<>();
    /** Path (with query) → what the stub received: method, content type, body. */
    private final Map<String, String[]> received = new ConcurrentHashMap<>();

    @BeforeEach
    void startTheStub() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
        client = new FlinkRestClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()));
    }

    @AfterEach
    void stopTheStub() {
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        String key = exchange.getRequestURI().toString();
        received.put(key, new String[]{exchange.getRequestMethod(), String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type")),
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.ISO_8859_1)});
        Object[] a = answers.getOrDefault(key, new Object[]{404, "{\"errors\":[\"Not found: " + key + "\"]}"});
        byte[] body = ((String) a[1]).getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders((Integer) a[0], body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    @Test
    void theJarGoesUpAsTheMultipartFieldJarfileAndItsIdIsTheStoredFileName(@TempDir Path dir) throws Exception {
        Path jar = Files.write(dir.resolve("job.jar"), new byte[]{'P', 'K', 3, 4, 0, (byte) 0xff});
        answers.put("/jars/upload", new Object[]{200,
                "{\"filename\":\"/tmp/flink-web/flink-web-upload/1234_job.jar\",\"status\":\"success\"}"});

        assertThat(client.upload(jar)).isEqualTo("1234_job.jar");

        String[] request = received.get("/jars/upload");
        assertThat(request[0]).isEqualTo("POST");
        assertThat(request[1]).startsWith("multipart/form-data; boundary=");
        String boundary = request[1].substring(request[1].indexOf("boundary=") + "boundary=".length());
        assertThat(request[2]).startsWith("--" + boundary + "\r\n")
                .contains("Content-Disposition: form-data; name=\"jarfile\"; filename=\"job.jar\"\r\n")
                .contains("\r\n\r\nPK\u0003\u0004\u0000\u00ff\r\n--" + boundary + "--\r\n");
    }

    @Test
    void aRunCarriesTheEntryClassTheArgumentsOneByOneAndTheParallelismAndAnswersTheJobId() throws Exception {
        answers.put("/jars/1234_job.jar/run", new Object[]{200, "{\"jobid\":\"f00d\"}"});
        var submission = new FlinkRestClient.Submission("io.example.Main", List.of("--name", "a b", "--q=\"x\""), 2,
                Optional.of("file:/tmp/sp-1"), true);

        assertThat(client.run("1234_job.jar", submission)).isEqualTo("f00d");

        String[] request = received.get("/jars/1234_job.jar/run");
        assertThat(request[0]).isEqualTo("POST");
        assertThat(request[1]).isEqualTo("application/json");
        var body = JSON.readTree(request[2]);
        assertThat(body.path("entryClass").asText()).isEqualTo("io.example.Main");
        assertThat(JSON.convertValue(body.path("programArgsList"), List.class)).containsExactly("--name", "a b", "--q=\"x\"");
        assertThat(body.path("parallelism").asInt()).isEqualTo(2);
        assertThat(body.path("savepointPath").asText()).isEqualTo("file:/tmp/sp-1");
        assertThat(body.path("allowNonRestoredState").asBoolean()).isTrue();
    }

    @Test
    void aRunThatFlinkRefusesThrowsWithFlinksErrors() {
        answers.put("/jars/x.jar/run", new Object[]{400, "{\"errors\":[\"Could not execute application: NoClassDefFoundError\"]}"});

        assertThatThrownBy(() -> client.run("x.jar", FlinkRestClient.Submission.of("M", List.of(), 1)))
                .hasMessageContaining("400").hasMessageContaining("NoClassDefFoundError");
    }

    @Test
    void aJobsStateIsReadFromItsPageAndAnUnknownJobIsMissing() {
        answers.put("/jobs/f00d", new Object[]{200, "{\"jid\":\"f00d\",\"state\":\"RESTARTING\",\"vertices\":[]}"});

        assertThat(client.state("f00d")).isEqualTo("RESTARTING");
        assertThat(client.state("beef")).isEqualTo(FlinkRestClient.MISSING);
    }

    @Test
    void allTasksRunOnlyWhenEveryVertexHasAsManyRunningSubtasksAsItsParallelism() throws Exception {
        String vertices = "[{\"id\":\"v1\",\"parallelism\":2,\"tasks\":{\"RUNNING\":2}},"
                + "{\"id\":\"v2\",\"parallelism\":2,\"tasks\":{\"RUNNING\":1,\"DEPLOYING\":1}}]";
        assertThat(FlinkRestClient.allTasksRunning(JSON.readTree("{\"state\":\"RUNNING\",\"vertices\":" + vertices + "}"))).isFalse();
        assertThat(FlinkRestClient.allTasksRunning(JSON.readTree("{\"state\":\"RUNNING\",\"vertices\":"
                + vertices.replace("\"RUNNING\":1,\"DEPLOYING\":1", "\"RUNNING\":2") + "}"))).isTrue();
        assertThat(FlinkRestClient.allTasksRunning(JSON.readTree("{\"state\":\"RESTARTING\",\"vertices\":"
                + vertices.replace("\"RUNNING\":1,\"DEPLOYING\":1", "\"RUNNING\":2") + "}"))).isFalse();
    }

    @Test
    void placementIsTheTaskManagersOfEveryVertex() {
        answers.put("/jobs/f00d", new Object[]{200, "{\"state\":\"RUNNING\",\"vertices\":[{\"id\":\"v1\"},{\"id\":\"v2\"}]}"});
        answers.put("/jobs/f00d/vertices/v1/taskmanagers", new Object[]{200, "{\"taskmanagers\":[{\"taskmanager-id\":\"taskmanager-1\"}]}"});
        answers.put("/jobs/f00d/vertices/v2/taskmanagers", new Object[]{200, "{\"taskmanagers\":[{\"taskmanager-id\":\"taskmanager-2\"}]}"});

        assertThat(client.placement("f00d")).containsExactly("taskmanager-1", "taskmanager-2");
    }

    @Test
    void cancelIsAPatchWithModeCancelAndARefusalThrows() {
        answers.put("/jobs/f00d?mode=cancel", new Object[]{202, "{}"});
        client.cancel("f00d");
        assertThat(received.get("/jobs/f00d?mode=cancel")[0]).isEqualTo("PATCH");

        assertThatThrownBy(() -> client.cancel("beef")).hasMessageContaining("404");
    }

    @Test
    void aStopWithSavepointIsFollowedByItsTriggerUntilTheSavepointsLocation() throws Exception {
        answers.put("/jobs/f00d/stop", new Object[]{202, "{\"request-id\":\"t1\"}"});
        answers.put("/jobs/f00d/savepoints/t1", new Object[]{200, "{\"status\":{\"id\":\"IN_PROGRESS\"}}"});

        assertThat(client.stopWithSavepoint("f00d", "file:/sp")).isEqualTo("t1");
        assertThat(JSON.readTree(received.get("/jobs/f00d/stop")[2]).path("targetDirectory").asText()).isEqualTo("file:/sp");
        assertThat(client.savepointStatus("f00d", "t1")).isEmpty();

        answers.put("/jobs/f00d/savepoints/t1", new Object[]{200,
                "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"location\":\"file:/sp/savepoint-1\"}}"});
        assertThat(client.savepointStatus("f00d", "t1")).contains("file:/sp/savepoint-1");

        answers.put("/jobs/f00d/savepoints/t1", new Object[]{200,
                "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failure-cause\":{\"class\":\"x\"}}}"});
        assertThatThrownBy(() -> client.savepointStatus("f00d", "t1")).hasMessageContaining("failed");
    }

    @Test
    void aJobsEndpointIsItsIdThenTheRestUrlAsTheHealthReaderParsesIt() {
        assertThat(client.endpointOf("f00d")).isEqualTo("f00d http://127.0.0.1:" + server.getAddress().getPort())
                .matches("\\S+ http://\\S+");
    }

    @Test
    void checkpointCountsAndTheLatestRestoreAreRead() {
        answers.put("/jobs/f00d/checkpoints", new Object[]{200,
                "{\"counts\":{\"completed\":7,\"restored\":1},\"latest\":{\"restored\":{\"id\":5}}}"});
        assertThat(client.checkpoints("f00d")).isEqualTo(new FlinkRestClient.Checkpoints(7, 1, Optional.of(5L)));

        answers.put("/jobs/f00d/checkpoints", new Object[]{200, "{\"counts\":{\"completed\":0,\"restored\":0},\"latest\":{\"restored\":null}}"});
        assertThat(client.checkpoints("f00d").lastRestoredId()).isEmpty();
    }
}
