package io.streamhouse.launcher;

import java.util.Optional;
import java.util.function.Consumer;

/** The CEP job (Flink MiniCluster in a child JVM), beside the apps: it needs only the platform. */
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
        stack.cep = CepProcess.start(c.options.home(), stack.platform.bootstrapServers(),
                stack.platform.schemaRegistryUrl().toString(), c.data.resolve("cep"), c.logs(), stack.supervisor);
    }
}
