package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.state.StampedFact;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.topic.Topics;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.TaskManagerMetricGroup;
import org.apache.flink.runtime.metrics.util.TestingMetricRegistry;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.types.Either;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.streamhouse.detection.cep.CepEvents.addressChanged;
import static io.streamhouse.detection.cep.CepEvents.order;
import static io.streamhouse.detection.cep.CepEvents.payment;
import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fact older than its pattern's retention behind the reconciliation's watermark changes nothing and is dropped there:
 * given the watermark a day past a fact, when the fact arrives, expect it counted under the operator's metric group
 * {@code topic=<the fact's topic>} as {@code droppedBeyondRetention}, per topic, and a fact within the retention not
 * counted. The metrics are captured as Flink's registry receives them, so the name and group are what the REST API shows.
 */
class LateReconcilerDroppedTest {
    private static final Address DAM = SampleEvents.address("Dam 1", "Amsterdam");
    private final Map<String, Counter> registered = new ConcurrentHashMap<>();
    private KeyedTwoInputStreamOperatorTestHarness<String, StampedFact, Either<Alert, StampedFact>, Alert> harness;

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aPaymentBeyondTheRetentionIsCountedUnderItsTopicAndOneWithinIsNot() throws Exception {
        CardTestingPattern pattern = new CardTestingPattern();
        open(pattern, Topics.TRANSACTION_REQUESTS.name());
        Instant watermark = T0.plus(ONE_MINUTE.multipliedBy(60 * 24));
        harness.processWatermark1(new Watermark(watermark.toEpochMilli()));
        harness.processWatermark2(new Watermark(watermark.toEpochMilli()));

        harness.processElement1(stamped(pattern, payment("old-1", "card-1", "1.00", T0)), T0.toEpochMilli());
        harness.processElement1(stamped(pattern, payment("old-2", "card-2", "1.00", T0)), T0.toEpochMilli());
        Instant recent = watermark.minus(ONE_MINUTE);
        harness.processElement1(stamped(pattern, payment("recent", "card-1", "1.00", recent)), recent.toEpochMilli());

        assertThat(dropped(Topics.TRANSACTION_REQUESTS.name())).as("two facts a day behind the watermark").isEqualTo(2);
        assertThat(registered).as("one counter, the fact's topic's").hasSize(1);
    }

    @Test
    void accountTakeoverCountsEachFactUnderTheTopicItCameFrom() throws Exception {
        AccountTakeoverPattern pattern = new AccountTakeoverPattern();
        open(pattern, Topics.ORDERS.name());
        Instant watermark = T0.plus(ONE_MINUTE.multipliedBy(60 * 24 * 30));
        harness.processWatermark1(new Watermark(watermark.toEpochMilli()));
        harness.processWatermark2(new Watermark(watermark.toEpochMilli()));

        harness.processElement1(stamped(pattern, Either.Left(addressChanged("a-1", "c-1", DAM, T0))),
                T0.toEpochMilli());
        harness.processElement1(stamped(pattern, Either.Right(order("o-1", "order-1", "c-1", "1500.00", DAM, T0))),
                T0.toEpochMilli());

        assertThat(dropped(Topics.CUSTOMERS.name())).isEqualTo(1);
        assertThat(dropped(Topics.ORDERS.name())).isEqualTo(1);
    }

    private long dropped(String topic) {
        Counter counter = registered.get(topic);
        assertThat(counter).as("a counter registered for topic %s, among %s", topic, registered.keySet()).isNotNull();
        return counter.getCount();
    }

    /** The reconciler as the job wires it, its operator's metrics on a registry that keeps each dropped counter by topic. */
    private void open(SubjectPattern<?> pattern, String anchorTopic) throws Exception {
        TestingMetricRegistry registry = TestingMetricRegistry.builder().setRegisterConsumer((metric, name, group) -> {
            if (name.equals(LateReconciler.DROPPED_BEYOND_RETENTION)) {
                registered.put(group.getAllVariables().get("<" + LateReconciler.TOPIC_GROUP + ">"), (Counter) metric);
            }
        }).build();
        OperatorMetricGroup capturing = TaskManagerMetricGroup.createTaskManagerMetricGroup(registry, "localhost", ResourceID.generate())
                .addJob(new JobID(), "streamhouse-cep").addTask(ExecutionAttemptID.randomId(), "reconcile")
                .getOrAddOperator(new OperatorID(), "reconcile " + pattern.kind().ruleId());
        KeyedCoProcessOperator<String, StampedFact, Either<Alert, StampedFact>, Alert> operator =
                new KeyedCoProcessOperator<>(new LateReconciler(pattern, anchorTopic)) {
                    @Override
                    public OperatorMetricGroup getMetricGroup() {
                        return capturing; // not the field "metrics" of the operator, which the harness's environment fills
                    }
                };
        harness = new KeyedTwoInputStreamOperatorTestHarness<>(operator, StampedFact::getSubject,
                e -> e.isLeft() ? e.left().getSubject().getId() : e.right().getSubject(), Types.STRING);
        harness.open();
    }

    @SuppressWarnings("unchecked")
    private static <E> StampedFact stamped(SubjectPattern<E> pattern, Object event) {
        E e = (E) event;
        return new StampedFact(pattern.subject(e), pattern.factOf(e).orElseThrow(),
                Thresholds.of(PatternSettings.defaults(), pattern.kind()));
    }
}
