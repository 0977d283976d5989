package io.streamhouse.detection.cep;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Flink metric reporter that keeps the {@code numRecordsIn} and {@code numRecordsOut} counters of every operator of
 * the MiniCluster in this JVM (but the sinks' committers), so {@link ActivityCheckpoints} can tell whether any record moved since the
 * last checkpoint: a source read one, an operator emitted one (an alert a timer fired), a sink was given one.
 * Watermarks are not records, so an idle job's counters stand still.
 *
 * <p>Flink creates the reporter from its factory ({@link #configure}); the latest one created in this JVM is
 * {@link #current()}. On a Flink cluster the counters live in the task managers, not here, so this only serves the
 * {@code --local} job.
 */
public final class RecordActivity implements MetricReporter {
    /** The reporter's name in Flink's configuration ({@code metrics.reporter.<name>.factory.class}). */
    static final String NAME = "streamhouse-activity";
    private static final Set<String> COUNTED = Set.of("numRecordsIn", "numRecordsOut");
    private static final String OPERATOR = "<operator_name>";
    private static final AtomicReference<RecordActivity> CURRENT = new AtomicReference<>();

    private final Set<Counter> counters = ConcurrentHashMap.newKeySet();

    /** Sets Flink's configuration so that its MiniCluster reports to a {@link RecordActivity}. */
    static void configure(org.apache.flink.configuration.Configuration conf) {
        conf.setString("metrics.reporter." + NAME + ".factory.class", Factory.class.getName());
    }

    /** The reporter Flink created last in this JVM, if any. */
    static java.util.Optional<RecordActivity> current() {
        return java.util.Optional.ofNullable(CURRENT.get());
    }

    /**
     * The sum of the counters registered now. It changes whenever a record moves; it may also go down (a task that
     * restarts unregisters its counters and registers new ones at zero), so compare it for change, not for growth.
     */
    public long total() {
        long sum = 0;
        for (Counter c : counters) {
            sum += c.getCount();
        }
        return sum;
    }

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        if (metric instanceof Counter counter && COUNTED.contains(metricName) && counts(group.getAllVariables().get(OPERATOR))) {
            counters.add(counter);
        }
    }

    /**
     * Whether the counters of the operator named {@code operatorName} ({@code null}: a task's, not an operator's) tell
     * that records moved. A task's counters repeat its operators'. A sink's committer is given one committable at every
     * checkpoint, so its counters move because a checkpoint was taken: counted, they would keep an idle job
     * checkpointing.
     */
    static boolean counts(String operatorName) {
        return operatorName != null && !operatorName.endsWith(": Committer");
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        if (metric instanceof Counter counter) {
            counters.remove(counter);
        }
    }

    @Override
    public void open(MetricConfig config) {
        // nothing to connect to
    }

    @Override
    public void close() {
        counters.clear();
    }

    /** Found by Flink through {@code META-INF/services}, named by {@link #configure}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            RecordActivity reporter = new RecordActivity();
            CURRENT.set(reporter);
            return reporter;
        }
    }
}
