package io.streamhouse.detection.cep;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RecordActivityTest {

    /** A metric group of the operator {@code operator}, or of a task when null. */
    private static UnregisteredMetricsGroup group(String operator) {
        return new UnregisteredMetricsGroup() {
            @Override
            public Map<String, String> getAllVariables() {
                Map<String, String> variables = new HashMap<>();
                variables.put("<task_name>", "alerts: Writer -> alerts: Committer");
                if (operator != null) {
                    variables.put("<operator_name>", operator);
                }
                return variables;
            }
        };
    }

    @Test
    void recordsOfOperatorsCountButNotTheCommittablesACheckpointGivesACommitter() {
        RecordActivity activity = new RecordActivity();
        Counter writerIn = new SimpleCounter();
        Counter committerIn = new SimpleCounter();
        Counter taskIn = new SimpleCounter();
        Counter sourceOut = new SimpleCounter();
        activity.notifyOfAddedMetric(writerIn, "numRecordsIn", group("alerts: Writer"));
        activity.notifyOfAddedMetric(committerIn, "numRecordsIn", group("alerts: Committer"));
        activity.notifyOfAddedMetric(taskIn, "numRecordsIn", group(null));
        activity.notifyOfAddedMetric(sourceOut, "numRecordsOut", group("Source: fleet.vehicles.telemetry"));
        activity.notifyOfAddedMetric(new SimpleCounter(), "numBytesIn", group("alerts: Writer"));

        committerIn.inc(5); // one committable per checkpoint
        taskIn.inc(5);
        assertThat(activity.total()).isZero();

        sourceOut.inc();
        writerIn.inc(2);
        assertThat(activity.total()).isEqualTo(3);

        activity.notifyOfRemovedMetric(writerIn, "numRecordsIn", group("alerts: Writer"));
        assertThat(activity.total()).as("a restarted task's counters are gone").isEqualTo(1);
    }
}
