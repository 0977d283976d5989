package io.streamhouse.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.WireFormat;
import io.streamhouse.registry.interop.Hub;
import io.streamhouse.registry.interop.ParcelScanned;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Our registry and our Java serializers against a client nobody here wrote: Confluent's official JavaScript client
 * ({@code @confluentinc/schemaregistry}, pinned by the committed package-lock.json), driven by
 * {@code src/test/node/interop.mjs}.
 *
 * <p>Needs Node 20+ and npm. Without them the test is skipped on a developer machine and fails in CI (env CI set),
 * where Node is part of the image. {@code npm ci} runs in {@code target/node-interop} (never in the source tree) and is
 * skipped when the lock file is unchanged since the last successful install.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class NodeClientInteropIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration NPM_DEADLINE = Duration.ofMinutes(5);
    private static final Duration NODE_DEADLINE = Duration.ofSeconds(90);
    private static final String JAVA_TOPIC = "logistics.parcels.scanned";
    private static final String NODE_TOPIC = "logistics.parcels.scanned.node";

    /** Written by Java, read by Node: the null branch of the union and an empty array. */
    private static final ParcelScanned FROM_JAVA = ParcelScanned.newBuilder()
            .setScanId("scan-java-1")
            .setParcelId("parcel-42")
            .setHub(Hub.NL_RTM)
            .setWeightGrams(1250)
            .setScannedAtMillis(1_767_225_600_123L)
            .setDeclaredValueEur(99.95)
            .setFragile(false)
            .setNote(null)
            .setTags(List.of())
            .build();

    /** Written by Node, read by Java: the string branch of the union and a non-empty array. */
    private static final ParcelScanned FROM_NODE = ParcelScanned.newBuilder()
            .setScanId("scan-node-1")
            .setParcelId("parcel-77")
            .setHub(Hub.BE_ANR)
            .setWeightGrams(3120)
            .setScannedAtMillis(1_767_225_659_999L)
            .setDeclaredValueEur(249.5)
            .setFragile(true)
            .setNote("left with the neighbour, üñíçødé included")
            .setTags(List.of("express", "cold-chain"))
            .build();

    /** Overridable (-Dinterop.node=..., -Dinterop.npm=...) to use another install, or to check the skip path. */
    private static final String NODE = System.getProperty("interop.node", "node");
    private static final String NPM = System.getProperty("interop.npm", "npm");

    private static Path workDir;
    private static String nodeMissing;
    private static SchemaRegistryServer server;

    @BeforeAll
    static void installClient() throws Exception {
        Optional<String> nodeVersion = run(List.of(NODE, "--version"), Path.of("."), Duration.ofSeconds(20))
                .filter(out -> out.trim().matches("v(\\d+)\\..*") && major(out) >= 20);
        if (nodeVersion.isEmpty()) {
            String why = "Node 20+ (node and npm on PATH) is needed for the interop test with Confluent's JavaScript"
                    + " client";
            if (isCi()) {
                fail(why + ", and CI must have it");
            }
            // Skipped in the test itself, not here: a class aborted in @BeforeAll shows as 0 tests, not as skipped.
            nodeMissing = why + "; skipped outside CI";
            return;
        }
        Path nodeSources = Path.of(System.getProperty("interop.node.dir", "src/test/node"));
        workDir = Path.of(System.getProperty("interop.work.dir", "target/node-interop")).toAbsolutePath();
        Files.createDirectories(workDir);
        for (String file : List.of("package.json", "package-lock.json", "interop.mjs")) {
            Files.copy(nodeSources.resolve(file), workDir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        Path stamp = workDir.resolve(".installed-package-lock.json");
        byte[] lock = Files.readAllBytes(workDir.resolve("package-lock.json"));
        boolean installed = Files.exists(stamp) && Files.isDirectory(workDir.resolve("node_modules"))
                && java.util.Arrays.equals(Files.readAllBytes(stamp), lock);
        if (!installed) {
            // --ignore-scripts: the client needs no install scripts, and none should run unreviewed.
            Optional<String> npm = run(List.of(NPM, "ci", "--no-audit", "--no-fund", "--ignore-scripts",
                    "--prefer-offline"), workDir, NPM_DEADLINE);
            if (npm.isEmpty()) {
                fail("npm ci failed in " + workDir + "; see the npm-ci.log there");
            }
            Files.write(stamp, lock);
        }
        server = SchemaRegistryServer.start("127.0.0.1", 0, new InMemorySchemaStore());
    }

    @AfterAll
    static void stopRegistry() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void confluentsJavaScriptClientAndOurJavaSerdesAgreeOnIdsAndBytes() throws Exception {
        Assumptions.assumeTrue(nodeMissing == null, () -> nodeMissing);
        Path schemaFile = Path.of("src/test/avro/parcel-scanned.avsc").toAbsolutePath();
        Path javaBytes = workDir.resolve("from-java.bin");
        Path nodeBytes = workDir.resolve("from-node.bin");
        Path recordJson = workDir.resolve("record-for-node.json");
        Files.deleteIfExists(nodeBytes);

        int javaId;
        try (CachingSchemaRegistryClient client = new CachingSchemaRegistryClient(server.url().toString());
                AvroSerializer<ParcelScanned> serializer = new AvroSerializer<>(client, ParcelScanned.class, false)) {
            byte[] bytes = serializer.serialize(JAVA_TOPIC, FROM_JAVA);
            javaId = WireFormat.schemaId(bytes, JAVA_TOPIC);
            Files.write(javaBytes, bytes);
        }
        Files.writeString(recordJson, asJson(FROM_NODE).toString(), StandardCharsets.UTF_8);

        Optional<String> output = run(List.of(NODE, "interop.mjs", server.url().toString(), schemaFile.toString(),
                JAVA_TOPIC, javaBytes.toString(), NODE_TOPIC, recordJson.toString(), nodeBytes.toString()),
                workDir, NODE_DEADLINE);
        assertThat(output).as("node interop.mjs must succeed; log in " + workDir).isPresent();
        JsonNode result = output.get().lines().filter(line -> line.startsWith("INTEROP_RESULT "))
                .map(line -> read(line.substring("INTEROP_RESULT ".length())))
                .reduce((first, second) -> second)
                .orElseThrow(() -> new AssertionError("no INTEROP_RESULT line in:\n" + output.get()));

        // Ids agree both ways: the .avsc registered from Node gets the id our Java serializer registered.
        assertThat(result.get("registeredId").asInt()).isEqualTo(javaId);
        assertThat(result.get("idUnderJavaSubject").asInt()).isEqualTo(javaId);
        assertThat(result.get("byVersion").get("id").asInt()).isEqualTo(javaId);
        assertThat(result.get("byVersion").get("version").asInt()).isEqualTo(1);
        assertThat(result.get("byVersion").get("subject").asText()).isEqualTo(NODE_TOPIC + "-value");
        assertThat(result.get("latest").get("id").asInt()).isEqualTo(javaId);
        assertThat(result.get("versions").toString()).isEqualTo("[1]");
        assertThat(result.get("subjects").toString())
                .isEqualTo("[\"" + JAVA_TOPIC + "-value\",\"" + NODE_TOPIC + "-value\"]");
        assertThat(result.get("compatible").asBoolean()).isTrue();
        assertThat(result.get("defaultCompatibility").asText()).isEqualTo("BACKWARD");
        Schema fetchedById = new Schema.Parser().parse(result.get("byIdSchema").asText());
        assertThat(fetchedById.getFullName()).isEqualTo(ParcelScanned.class.getName());
        assertThat(fetchedById.getFields()).hasSize(ParcelScanned.getClassSchema().getFields().size());
        assertThat(result.get("byVersion").get("schema").asText()).isEqualTo(result.get("byIdSchema").asText());

        // Node decoded the bytes our Java serializer wrote to exactly the values we wrote.
        assertThat(result.get("javaBytesSchemaId").asInt()).isEqualTo(javaId);
        assertThat(result.get("decodedFromJava")).isEqualTo(asJson(FROM_JAVA));

        // Our Java deserializer decodes the bytes Confluent's client wrote to exactly the values it was given.
        byte[] written = Files.readAllBytes(nodeBytes);
        assertThat(result.get("nodeBytesMagic").asInt()).isZero();
        assertThat(WireFormat.schemaId(written, NODE_TOPIC)).isEqualTo(javaId)
                .isEqualTo(result.get("nodeBytesSchemaId").asInt());
        try (CachingSchemaRegistryClient client = new CachingSchemaRegistryClient(server.url().toString());
                AvroDeserializer<ParcelScanned> deserializer =
                        new AvroDeserializer<>(client, ParcelScanned.class, false)) {
            assertThat(deserializer.deserialize(NODE_TOPIC, written)).isEqualTo(FROM_NODE);
        }
    }

    /** The JSON a JavaScript program sees for the record (enum as its symbol, union unwrapped). */
    private static ObjectNode asJson(ParcelScanned scan) {
        ObjectNode node = JSON.createObjectNode()
                .put("scanId", scan.getScanId())
                .put("parcelId", scan.getParcelId())
                .put("hub", scan.getHub().name())
                .put("weightGrams", scan.getWeightGrams())
                .put("scannedAtMillis", scan.getScannedAtMillis())
                .put("declaredValueEur", scan.getDeclaredValueEur())
                .put("fragile", scan.getFragile())
                .put("note", scan.getNote());
        ArrayNode tags = node.putArray("tags");
        scan.getTags().forEach(tags::add);
        return node;
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new AssertionError("INTEROP_RESULT is not JSON: " + json, e);
        }
    }

    private static boolean isCi() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false");
    }

    private static int major(String version) {
        return Integer.parseInt(version.trim().substring(1).split("\\.")[0]);
    }

    /**
     * Runs a command with a deadline; its output goes to a log file beside it (a pipe could fill up and block it).
     * Empty when it cannot start, exits non-zero or overruns; an overrunning process and its children are killed.
     */
    private static Optional<String> run(List<String> command, Path dir, Duration deadline) throws IOException,
            InterruptedException {
        String name = Path.of(command.get(0)).getFileName() + "-" + command.get(1).replace("-", "");
        Path log = workDir != null && dir.equals(workDir) ? workDir.resolve(name + ".log")
                : Files.createTempFile(name, ".log");
        Process process;
        try {
            process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
        } catch (IOException cannotStart) {
            return Optional.empty();
        }
        try {
            if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                System.err.println(String.join(" ", command) + " overran " + deadline + "; killing it. Log: " + log);
                return Optional.empty();
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                System.err.println(String.join(" ", command) + " exited " + process.exitValue() + ":\n" + output);
                return Optional.empty();
            }
            return Optional.of(output);
        } finally {
            if (process.isAlive()) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
