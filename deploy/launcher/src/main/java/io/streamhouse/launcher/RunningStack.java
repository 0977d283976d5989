package io.streamhouse.launcher;

import io.streamhouse.control.ControlChannel;
import io.streamhouse.loadtests.demo.DemoLoad;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.supervisor.Supervisor;

import java.util.List;
import java.util.Map;

/** What up started, stopped in reverse order. */
final class RunningStack implements AutoCloseable {
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
    SqlProcess sql;
    DemoLoad.Result demoDecisions;
    String cdcCustomer;
    Map<String, String> tokens = Map.of();
    /** How this process's Kafka clients log in; restored when the stack stops (LauncherIT runs in a test JVM). */
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
        if (sql != null) {
            sql.close();
            sql = null;
        }
        if (cep != null) {
            cep.close();
            cep = null;
        }
        for (int i = apiInstances.size() - 1; i >= 0; i--) {
            apiInstances.get(i).close();
        }
        apiInstances.clear();
        for (int i = ingestInstances.size() - 1; i >= 0; i--) {
            ingestInstances.get(i).close();
        }
        ingestInstances.clear();
        if (api != null) {
            api.close();
            api = null;
        }
        if (ingest != null) {
            ingest.close();
            ingest = null;
        }
        if (platform != null) {
            platform.close();
            platform = null;
        }
        if (kafkaSettings != null) {
            kafkaSettings.close();
            kafkaSettings = null;
        }
    }
}
