package io.streamhouse.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The api's StatefulSet and ingest's Deployment against the apps' own configuration: their ports, their health
 * endpoints (open without a token), every environment variable they are given (each one the app reads), their
 * state directories on a volume, their standbys, and a password file for each Kafka user their code logs in as.
 */
class AppManifestsTest {
    private static final Path REPO = Path.of("../..").toAbsolutePath().normalize();

    record App(String module, String kind, String name) {
        Manifests.Doc doc() {
            return Manifests.one(kind, name);
        }

        JsonNode container() {
            return doc().container();
        }

        Map<String, String> env() {
            Map<String, String> env = new LinkedHashMap<>();
            container().path("env").forEach(e -> env.put(e.path("name").asText(), e.path("value").asText(null)));
            return env;
        }

        Properties properties() throws IOException {
            Properties p = new Properties();
            try (Reader in = Files.newBufferedReader(REPO.resolve(module + "/src/main/resources/application.properties"))) {
                p.load(in);
            }
            return p;
        }

        String propertiesText() throws IOException {
            return Files.readString(REPO.resolve(module + "/src/main/resources/application.properties"));
        }
    }

    static final List<App> APPS = List.of(new App("api", "StatefulSet", "streamhouse-api"),
            new App("ingest", "Deployment", "streamhouse-ingest"));

    @Test
    void eachAppListensOnItsConfiguredPortOnEveryAddress() throws IOException {
        for (App app : APPS) {
            String port = app.properties().getProperty("quarkus.http.port");
            JsonNode http = app.container().path("ports").get(0);
            assertThat(http.path("containerPort").asText()).as(app.name() + " containerPort").isEqualTo(port);
            assertThat(app.env()).as(app.name()).containsEntry("QUARKUS_HTTP_PORT", port).containsEntry("QUARKUS_HTTP_HOST", "0.0.0.0");
            for (Manifests.Doc svc : Manifests.ofKind("Service")) {
                if (svc.name().startsWith(app.name())) {
                    assertThat(svc.node().path("spec").path("ports").get(0).path("port").asText()).as(svc.where()).isEqualTo(port);
                }
            }
        }
    }

    @Test
    void theProbesAreTheAppsHealthEndpointsWhichNeedNoToken() throws IOException {
        for (App app : APPS) {
            assertThat(Files.readString(REPO.resolve(app.module() + "/pom.xml"))).contains("<artifactId>quarkus-smallrye-health</artifactId>");
            Set<String> open = Set.of(app.properties().getProperty("quarkus.http.auth.permission.open.paths").split(","));
            JsonNode c = app.container();
            assertThat(c.path("readinessProbe").path("httpGet").path("path").asText()).as(app.name()).isEqualTo("/q/health/ready");
            assertThat(c.path("livenessProbe").path("httpGet").path("path").asText()).as(app.name()).isEqualTo("/q/health/live");
            for (String probe : List.of("readinessProbe", "livenessProbe", "startupProbe")) {
                JsonNode get = c.path(probe).path("httpGet");
                assertThat(open).as(app.name() + " " + probe + " path is open (quarkus.http.auth.permission.open.paths)")
                        .contains(get.path("path").asText());
                assertThat(get.path("port").asText()).as(app.name() + " " + probe + " port").isEqualTo(c.path("ports").get(0).path("name").asText());
            }
        }
    }

    @Test
    void everyEnvironmentVariableIsOneTheAppReads() throws IOException {
        List<String> unknown = new ArrayList<>();
        for (App app : APPS) {
            Set<String> known = knownVariables(app);
            for (String name : app.env().keySet()) {
                if ((name.startsWith("STREAMHOUSE_") || name.startsWith("QUARKUS_")) && !known.contains(name)) {
                    unknown.add(app.doc().where() + ": env " + name);
                }
            }
        }
        assertThat(unknown).as("variables no configuration of the app reads").isEmpty();
    }

    @Test
    void aMisspelledVariableIsNamed() throws IOException {
        App api = APPS.get(0);
        assertThat(knownVariables(api)).contains("STREAMHOUSE_STATE_DIR", "STREAMHOUSE_SERVING_ADVERTISED_HOST", "QUARKUS_HTTP_HOST")
                .doesNotContain("STREAMHOUSE_STATEDIR", "STREAMHOUSE_SERVING_ADVERTISED_HOSTS", "STREAMHOUSE_DECISION_STANDBYS");
    }

    @Test
    void theApisStateIsOnItsVolumeWithStandbysAndAPeerAddress() {
        App api = APPS.get(0);
        JsonNode spec = api.doc().node().path("spec");
        Map<String, String> env = api.env();
        String claim = spec.path("volumeClaimTemplates").get(0).path("metadata").path("name").asText();
        assertThat(env.get("STREAMHOUSE_STATE_DIR")).as(api.doc().where() + ": env STREAMHOUSE_STATE_DIR is the mount path of volume claim " + claim)
                .isEqualTo(mountPath(api.container(), claim));
        int replicas = spec.path("replicas").asInt();
        for (String standby : List.of("STREAMHOUSE_DECISION_STANDBY_REPLICAS", "STREAMHOUSE_SERVING_STANDBY_REPLICAS")) {
            assertThat(Integer.parseInt(env.get(standby))).as(standby).isBetween(1, replicas - 1);
        }
        assertThat(env.get("STREAMHOUSE_SERVING_ADVERTISED_HOST")).isEqualTo("$(POD_NAME)." + spec.path("serviceName").asText());
        assertThat(Integer.parseInt(env.get("STREAMHOUSE_REPLICATION_FACTOR"))).isEqualTo(ManifestGenerator.REPLICAS);
        App ingest = APPS.get(1);
        assertThat(ingest.env().get("STREAMHOUSE_CDC_STATE_DIR")).as(ingest.doc().where() + ": env STREAMHOUSE_CDC_STATE_DIR is the mount path of volume cdc-state")
                .isEqualTo(mountPath(ingest.container(), "cdc-state"));
    }

    @Test
    void eachAppHasAPasswordFileForEveryKafkaUserItsCodeLogsInAs() throws IOException {
        for (App app : APPS) {
            Set<String> used = principalsIn(REPO.resolve(app.module() + "/src/main/java"));
            JsonNode volumes = app.doc().node().path("spec").path("template").path("spec").path("volumes");
            Set<String> files = new TreeSet<>();
            for (JsonNode v : volumes) {
                if (v.path("name").asText().equals("kafka-credentials")) {
                    for (JsonNode source : v.path("projected").path("sources")) {
                        JsonNode item = source.path("secret").path("items").get(0);
                        assertThat(item.path("path").asText()).as(app.name()).isEqualTo(source.path("secret").path("name").asText() + ".password");
                        files.add(item.path("path").asText());
                    }
                }
            }
            assertThat(files).as(app.name() + " password files").isEqualTo(used.stream().map(u -> u + ".password").collect(Collectors.toCollection(TreeSet::new)));
            assertThat(app.env().get(KafkaClientSettings.CREDENTIALS_DIR_ENV)).isEqualTo(mountPath(app.container(), "kafka-credentials"));
            assertThat(app.env().get(KafkaClientSettings.SECURITY_PROTOCOL_ENV)).isEqualTo("SASL_PLAINTEXT");
        }
    }

    /** The user names of the KafkaPrincipals a module's main sources name. */
    static Set<String> principalsIn(Path sources) throws IOException {
        Set<String> users = new TreeSet<>();
        Pattern p = Pattern.compile("KafkaPrincipal\\.([A-Z_]+)\\b");
        try (Stream<Path> walk = Files.walk(sources)) {
            for (Path f : walk.filter(x -> x.toString().endsWith(".java")).toList()) {
                Matcher m = p.matcher(Files.readString(f));
                while (m.find()) {
                    users.add(KafkaPrincipal.valueOf(m.group(1)).userName());
                }
            }
        }
        return users;
    }

    /**
     * What an app reads from the environment: each {@code ${NAME…}} of its application.properties, each property there
     * in its environment form ({@code quarkus.http.host} → {@code QUARKUS_HTTP_HOST}), each {@code @WithName} of its
     * {@code @ConfigMapping(prefix = "streamhouse")} under one of the mapping's groups, and KafkaClientSettings' three.
     */
    static Set<String> knownVariables(App app) throws IOException {
        Set<String> known = new TreeSet<>(Set.of(KafkaClientSettings.SECURITY_PROTOCOL_ENV, KafkaClientSettings.SASL_MECHANISM_ENV,
                KafkaClientSettings.CREDENTIALS_DIR_ENV));
        Matcher ref = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)[:}]").matcher(app.propertiesText());
        while (ref.find()) {
            known.add(ref.group(1));
        }
        app.properties().stringPropertyNames().forEach(k -> known.add(envForm(k)));
        Map<String, Set<String>> mapping = new HashMap<>();
        try (Stream<Path> walk = Files.walk(REPO.resolve(app.module() + "/src/main/java"))) {
            for (Path f : walk.filter(x -> x.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                if (!text.contains("@ConfigMapping(prefix = \"streamhouse\")")) {
                    continue;
                }
                Matcher group = Pattern.compile("(?m)^\\s+(?:@WithName\\(\"([a-z-]+)\"\\)\\s+)?[A-Z]\\w+ (\\w+)\\(\\);").matcher(text);
                while (group.find()) {
                    mapping.computeIfAbsent("groups", k -> new TreeSet<>()).add(group.group(1) != null ? group.group(1) : group.group(2));
                }
                Matcher name = Pattern.compile("@WithName\\(\"([a-z-]+)\"\\)").matcher(text);
                while (name.find()) {
                    mapping.computeIfAbsent("names", k -> new TreeSet<>()).add(name.group(1));
                }
            }
        }
        for (String group : mapping.getOrDefault("groups", Set.of())) {
            for (String name : mapping.getOrDefault("names", Set.of())) {
                known.add(envForm("streamhouse." + group + "." + name));
            }
        }
        return known;
    }

    private static String envForm(String property) {
        return property.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    private static String mountPath(JsonNode container, String volume) {
        for (JsonNode m : container.path("volumeMounts")) {
            if (m.path("name").asText().equals(volume)) {
                return m.path("mountPath").asText();
            }
        }
        return null;
    }
}
