package io.streamhouse.launcher;

import io.streamhouse.platform.EmbeddedPlatform;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code <data>/endpoints.properties}: where the running stack is, for the tools beside it (replay, drills, the
 * generator, the benchmarks). Written once the platform runs and again once every app instance does.
 */
final class EndpointsFile {

    /** Where the running stack is, for {@code ./streamhouse replay} (same keys as the replay module's Endpoints). */
    static void write(Path data, EmbeddedPlatform platform, RunningStack apps) throws java.io.IOException {
        // The lake's catalog too, as lake.catalog.<Iceberg property> (replay backfill reads the tables with it).
        java.util.Properties p = new java.util.Properties();
        p.setProperty("kafka.bootstrap.servers", platform.bootstrapServers());
        p.setProperty("schema.registry.url", platform.schemaRegistryUrl().toString());
        // How a tool (replay, drills, benchmarks) logs in: it adopts these unless told otherwise (its own environment).
        io.streamhouse.security.kafka.KafkaClientSettings.childEnvironment().forEach((k, v) -> p.setProperty(k, v));
        platform.lakeCatalog().forEach((k, v) -> p.setProperty("lake.catalog." + k, v));
        if (apps != null) {
            // Once the apps run (their ports may have been chosen free): the drills find ingest and every api instance here.
            apiEndpoints(apps.ingest == null ? null : apps.ingest.url(), apps.apiUrls()).forEach(p::setProperty);
            ingestEndpoints(apps.ingestUrls()).forEach(p::setProperty);
        }
        try (var w = Files.newBufferedWriter(data.resolve("endpoints.properties"))) {
            p.store(w, "Where the running stack is (written by ./streamhouse up)");
        }
    }

    /** {@code ingest.instances} (instance 1 first) and {@code <component>.url} of ingest instances 2..N. */
    static Map<String, String> ingestEndpoints(List<java.net.URI> ingestUrls) {
        Map<String, String> p = new java.util.LinkedHashMap<>();
        List<String> names = new java.util.ArrayList<>();
        for (int k = 1; k <= ingestUrls.size(); k++) {
            names.add(LaunchOptions.ingestComponent(k));
            if (k > 1) {
                p.put(LaunchOptions.ingestComponent(k) + ".url", ingestUrls.get(k - 1).toString());
            }
        }
        if (!names.isEmpty()) {
            p.put("ingest.instances", String.join(",", names));
        }
        return p;
    }

    /**
     * {@code ingest.url}, {@code api.instances} (the instances' component names, instance 1 first) and
     * {@code <component>.url} for each: the keys the drills module's {@code ApiInstances} reads.
     */
    static Map<String, String> apiEndpoints(java.net.URI ingest, List<java.net.URI> apiUrls) {
        Map<String, String> p = new java.util.LinkedHashMap<>();
        if (ingest != null) {
            p.put("ingest.url", ingest.toString());
        }
        List<String> names = new java.util.ArrayList<>();
        for (int k = 1; k <= apiUrls.size(); k++) {
            names.add(LaunchOptions.apiComponent(k));
            p.put(LaunchOptions.apiComponent(k) + ".url", apiUrls.get(k - 1).toString());
        }
        if (!names.isEmpty()) {
            p.put("api.instances", String.join(",", names));
        }
        return p;
    }

    private EndpointsFile() {
    }
}
