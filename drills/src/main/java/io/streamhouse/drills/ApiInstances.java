package io.streamhouse.drills;

import io.streamhouse.replay.Endpoints;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Ingest and the api instances of the running stack, as {@code ./streamhouse up} writes them into
 * {@code <data>/endpoints.properties} once its apps run ({@code ingest.url}, {@code api.instances} = the instances'
 * component names, instance 1 first, and {@code <component>.url} for each). A stack started before these keys existed
 * has none: then the list is empty and the caller keeps its own defaults.
 */
record ApiInstances(Optional<URI> ingest, List<Instance> instances) {
    static final String INGEST_KEY = "ingest.url";
    static final String INSTANCES_KEY = "api.instances";

    /** One api instance: its supervised component ({@code api}, {@code api-2}, …) and base URL. */
    record Instance(String component, URI url) {
        /** As the api names itself in {@code meta.freshness.servedBy}: the host and port of its URL. */
        String address() {
            return url.getHost() + ":" + url.getPort();
        }
    }

    ApiInstances {
        instances = List.copyOf(instances);
    }

    static ApiInstances read(Path data) {
        Path file = data.resolve(Endpoints.FILE);
        Properties p = new Properties();
        if (Files.isRegularFile(file)) {
            try (Reader r = Files.newBufferedReader(file)) {
                p.load(r);
            } catch (IOException e) {
                throw new Endpoints.EnvironmentException("cannot read " + file + ": " + e.getMessage());
            }
        }
        return from(p);
    }

    /** @throws Endpoints.EnvironmentException when {@code api.instances} names an instance without its URL */
    static ApiInstances from(Properties p) {
        List<Instance> instances = new ArrayList<>();
        String names = p.getProperty(INSTANCES_KEY, "").trim();
        for (String name : names.isEmpty() ? new String[0] : names.split(",")) {
            String url = p.getProperty(name.trim() + ".url");
            if (url == null || url.isBlank()) {
                throw new Endpoints.EnvironmentException(Endpoints.FILE + " lists api instance " + name.trim() + " without its "
                        + name.trim() + ".url");
            }
            instances.add(new Instance(name.trim(), URI.create(url.trim())));
        }
        String ingest = p.getProperty(INGEST_KEY);
        return new ApiInstances(ingest == null || ingest.isBlank() ? Optional.empty() : Optional.of(URI.create(ingest.trim())), instances);
    }

    Optional<Instance> instance(String component) {
        return instances.stream().filter(i -> i.component().equals(component)).findFirst();
    }

    /** The instances other than {@code component}, in order: where its keys must still be answered once it is killed. */
    List<Instance> survivors(String component) {
        return instances.stream().filter(i -> !i.component().equals(component)).toList();
    }

    /**
     * The first key, in the order given, whose lookup was served fresh by {@code owner} ({@code servedBy} equal to its
     * address, not stale): a key that instance owned before the fault.
     */
    static Optional<String> firstOwnedBy(Map<String, Served> lookedUp, Instance owner) {
        return lookedUp.entrySet().stream().filter(e -> !e.getValue().stale() && owner.address().equals(e.getValue().servedBy()))
                .map(Map.Entry::getKey).findFirst();
    }

    /** What a lookup's {@code meta.freshness} said: who answered, and whether from a standby. */
    record Served(String servedBy, boolean stale) {
    }
}
