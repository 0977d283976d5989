package io.streamhouse.launcher;

import io.streamhouse.control.ControlChannel;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.supervisor.Supervisor;

import java.util.List;
import java.util.Map;

/** What up started, stopped in reverse order. */
final class RunningStack implements AutoCloseable {
    /** How long each part took to stop, in the order they finished (the stop line prints it). */
    private final List<String> stopTimes = new java.util.concurrent.CopyOnWriteArrayList<>();
    Supervisor supervisor;
    ControlChannel control;
    /** Looks inside cep and connect once the stack is ready; stopped first. */
    volatile HealthWatch health;
    volatile boolean ready;
    EmbeddedPlatform platform;
    AppProcess ingest;
    AppProcess api;
    /** Instances 2..N of the api ({@code --api-instances}). */
    final List<AppProcess> apiInstances = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Instances 2..N of ingest ({@code --ingest-instances}). */
    final List<AppProcess> ingestInstances = new java.util.concurrent.CopyOnWriteArrayList<>();
    CepProcess cep;
    /** The CEP job on a Flink session cluster ({@code --task-managers N}) instead of {@link #cep}. */
    volatile CepCluster cepCluster;
    SqlProcess sql;
    Map<String, String> tokens = Map.of();
    /** How this process's Kafka clients log in; restored when the stack stops. */
    io.streamhouse.security.kafka.KafkaClientSettings.ProcessSettings kafkaSettings;

    /** Every ingest instance's URL, instance 1 first. */
    List<java.net.URI> ingestUrls() {
        return urls(ingest, ingestInstances);
    }

    /** Every api instance's URL, instance 1 first. */
    List<java.net.URI> apiUrls() {
        return urls(api, apiInstances);
    }

    private static List<java.net.URI> urls(AppProcess first, List<AppProcess> others) {
        List<java.net.URI> urls = new java.util.ArrayList<>();
        if (first != null) {
            urls.add(first.url());
            others.forEach(i -> urls.add(i.url()));
        }
        return urls;
    }

    @Override
    public synchronized void close() {
        ready = false; // no more control requests
        if (health != null) {
            health.close();
            health = null;
        }
        if (control != null) {
            control.close();
            control = null;
        }
        // The apps, the CEP job and the query service need nothing of each other: they stop side by side (each
        // within its own grace), then the platform they all use.
        List<io.streamhouse.supervisor.SupervisedComponent> apps = new java.util.ArrayList<>();
        if (sql != null) {
            apps.add(sql);
        }
        if (cep != null) {
            apps.add(cep);
        }
        if (cepCluster != null) {
            apps.add(cepCluster);
        }
        apps.addAll(apiInstances);
        apps.addAll(ingestInstances);
        if (api != null) {
            apps.add(api);
        }
        if (ingest != null) {
            apps.add(ingest);
        }
        closeSideBySide(apps);
        sql = null;
        cep = null;
        cepCluster = null;
        apiInstances.clear();
        ingestInstances.clear();
        api = null;
        ingest = null;
        if (platform != null) {
            long t0 = System.nanoTime();
            platform.close();
            stopTimes.add(String.format("then the platform %.1f s", (System.nanoTime() - t0) / 1e9));
            platform = null;
        }
        if (kafkaSettings != null) {
            kafkaSettings.close();
            kafkaSettings = null;
        }
    }

    /** Closes each on a thread of its own and returns when all are closed; a failure is printed, not thrown. */
    /** Each part's stop time, as {@code close} recorded them: "api 3.1 s, cep 4.0 s, then the platform 2.2 s". */
    String stopTimes() {
        return String.join(", ", stopTimes);
    }

    private void closeSideBySide(List<io.streamhouse.supervisor.SupervisedComponent> parts) {
        List<Thread> threads = new java.util.ArrayList<>();
        for (io.streamhouse.supervisor.SupervisedComponent part : parts) {
            Thread t = new Thread(() -> {
                long t0 = System.nanoTime();
                try {
                    part.close();
                    stopTimes.add(String.format("%s %.1f s", part.supervised().name(), (System.nanoTime() - t0) / 1e9));
                } catch (Exception e) {
                    System.err.println("could not stop " + part.supervised().name() + ": " + e.getMessage());
                }
            }, "streamhouse-stop");
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
