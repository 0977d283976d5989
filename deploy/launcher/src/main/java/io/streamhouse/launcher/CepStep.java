package io.streamhouse.launcher;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * The CEP job beside the apps, in a Flink MiniCluster in one child JVM or ({@code --task-managers N}) on a Flink
 * session cluster ({@link CepCluster}): it needs only the platform.
 */
final class CepStep implements StartStep {

    @Override
    public String name() {
        return "cep";
    }

    @Override
    public java.util.Set<String> needs() {
        return java.util.Set.of("platform");
    }

    @Override
    public Optional<String> skip(StartContext c) {
        return c.options.runs(LaunchOptions.Part.CEP) ? Optional.empty()
                : Optional.of("Not starting the CEP job (--without cep): no alerts on alerts.fraud, alerts.parcels, alerts.maintenance.");
    }

    @Override
    public String announce(StartContext c) {
        return "Starting the CEP job (Flink) ...";
    }

    @Override
    public void start(StartContext c, Consumer<String> out) throws Exception {
        RunningStack stack = c.stack;
        if (c.options.plan().sessionCluster()) {
            stack.cepCluster = CepCluster.start(c.options.home(), stack.platform.bootstrapServers(),
                    stack.platform.schemaRegistryUrl().toString(), c.data.resolve("flink"), c.options.plan().taskManagers(),
                    stack.supervisor, out);
            out.accept(String.format("  Flink session cluster: %s; the CEP job %s at parallelism %d, REST %s (%.1f s)",
                    String.join(", ", stack.cepCluster.components()), stack.cepCluster.jobId(), CepCluster.PARALLELISM,
                    stack.cepCluster.endpoint().split(" ")[1], c.seconds()));
            return;
        }
        stack.cep = CepProcess.start(c.options.home(), stack.platform.bootstrapServers(),
                stack.platform.schemaRegistryUrl().toString(), c.data.resolve("cep"), c.logs(), stack.supervisor);
    }
}
