package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.StampedFact;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.cep.CEP;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.OutputTag;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.BroadcastStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;

import java.util.ArrayList;
import java.util.List;

/**
 * The CEP job as a pure wiring of the sources and sinks it is given (the shape of flink-training's exercises): it
 * neither creates connections nor starts anything, so tests run it on bounded collections and {@link CepMain} on
 * Kafka. Every operator has a {@code uid}, so a changed job keeps its state across a savepoint.
 *
 * <pre>
 * payments.transactions.requested ─ decode ─┬─ facts ─ … card testing ──────┐
 *                                           └─ facts ─ … impossible travel ──┤
 * shop.customers ─ decode ─┐                                                 │
 * shop.orders ──── decode ─┴─ facts ─ … account takeover ────────────────────┼─▶ alerts.fraud / .parcels /
 * logistics.parcels.scanned ─ decode ─ facts ─ … parcel SLA (deadlines) ─────┤   .maintenance
 * fleet.vehicles.telemetry ─ decode ─┬─ facts ─ … engine overheating ────────┤
 *                                    └─ facts ─ … maintenance due ───────────┘
 * rules.definitions ─ decode ─ broadcast (thresholds) ─▶ every pattern's stamping step
 * every decode ─▶ &lt;topic&gt;.dlq (unreadable) and &lt;topic&gt;.late (behind the watermark)
 * every pattern ─▶ &lt;topic of its anchor events&gt;.dlq (a match whose alert cannot be built)
 * </pre>
 *
 * Each pattern (…) runs on Flink's CEP library: facts ─ stamp (thresholds in force, from the broadcast) ─ keyBy ─
 * repeats dropped ─ {@code CEP.pattern} (parcels: ─ deadline facts ─ two {@code CEP.pattern}s, delivered and never
 * delivered) ─ keyBy ─ reconcile (with the stamped facts: late events, {@link LateReconciler}).
 */
public final class CepJob {

    /** What the job reads in event time, in wiring order (each has a late-events topic). */
    static List<Topic<String, ? extends SpecificRecord>> eventTimeInputs() {
        return List.of(Topics.TRANSACTION_REQUESTS, Topics.CUSTOMERS, Topics.ORDERS, Topics.PARCEL_SCANS, Topics.VEHICLE_TELEMETRY);
    }

    /** Every topic the job reads: the rules and the event-time inputs (each has a dead-letter topic). */
    static List<Topic<String, ? extends SpecificRecord>> inputs() {
        List<Topic<String, ? extends SpecificRecord>> all = new ArrayList<>();
        all.add(Topics.RULES);
        all.addAll(eventTimeInputs());
        return List.copyOf(all);
    }

    public static void build(StreamExecutionEnvironment env, CepSources sources, CepSinks sinks, CepJobConfig config,
                             RegistryClientFactory registry) {
        // Chained operators pass records on without a defensive copy (Avro deep copies of every event, two or three
        // per event: decode -> split -> facts of one or two patterns). Safe here: no function keeps or changes a record
        // it was given or has emitted; the pattern operators get theirs through the keyed exchange, deserialised anew.
        env.getConfig().enableObjectReuse();
        List<DataStream<DeadLetter>> deadLetters = new ArrayList<>();
        List<DataStream<LateRecord>> late = new ArrayList<>();

        BroadcastStream<RuleDefinition> rules = rules(env, sources, deadLetters);
        DataStream<TransactionAuthorizationRequested> transactions =
                events(env, sources, Topics.TRANSACTION_REQUESTS, config, registry, deadLetters, late);
        DataStream<CustomerEvent> customers = events(env, sources, Topics.CUSTOMERS, config, registry, deadLetters, late);
        DataStream<OrderEvent> orders = events(env, sources, Topics.ORDERS, config, registry, deadLetters, late);
        DataStream<ParcelScanned> scans = events(env, sources, Topics.PARCEL_SCANS, config, registry, deadLetters, late);
        DataStream<VehicleTelemetry> telemetry =
                events(env, sources, Topics.VEHICLE_TELEMETRY, config, registry, deadLetters, late);

        TypeInformation<Either<CustomerEvent, OrderEvent>> customerOrOrder =
                new EitherTypeInfo<>(new AvroTypeInfo<>(CustomerEvent.class), new AvroTypeInfo<>(OrderEvent.class));
        DataStream<Either<CustomerEvent, OrderEvent>> customerActivity = customers
                .map(c -> Either.<CustomerEvent, OrderEvent>Left(c), customerOrOrder)
                .uid("customer-changes-as-activity").name("customer changes")
                .union(orders.map(o -> Either.<CustomerEvent, OrderEvent>Right(o), customerOrOrder)
                        .uid("orders-as-activity").name("orders"));

        // A match whose alert cannot be built goes to the dead letters of the topic its anchor event comes from.
        DataStream<Alert> alerts = match(transactions, rules, new CardTestingPattern(), Topics.TRANSACTION_REQUESTS, config, sinks, deadLetters)
                .union(match(transactions, rules, new ImpossibleTravelPattern(), Topics.TRANSACTION_REQUESTS, config, sinks, deadLetters),
                        match(customerActivity, rules, new AccountTakeoverPattern(), Topics.ORDERS, config, sinks, deadLetters),
                        match(scans, rules, new ParcelSlaPattern(), Topics.PARCEL_SCANS, config, sinks, deadLetters),
                        match(telemetry, rules, new OverheatingPattern(), Topics.VEHICLE_TELEMETRY, config, sinks, deadLetters),
                        match(telemetry, rules, new MaintenanceDuePattern(), Topics.VEHICLE_TELEMETRY, config, sinks, deadLetters));

        alerts.sinkTo(sinks.alerts()).uid("sink-alerts").name("alerts");
        union(deadLetters).sinkTo(sinks.deadLetters()).uid("sink-dead-letters").name("dead letters");
        union(late).sinkTo(sinks.lateEvents()).uid("sink-late-events").name("late events");
    }

    /**
     * One pattern: each event projected to the pattern's fact (chained to the decoding), stamped with the thresholds in
     * force, then matched on the library ({@link #onLibrary}). Only stamped facts cross the keyed exchanges.
     */
    private static <E> DataStream<Alert> match(DataStream<E> events, BroadcastStream<RuleDefinition> rules,
                                               SubjectPattern<E> pattern, Topic<String, ?> anchorTopic,
                                               CepJobConfig config, CepSinks sinks,
                                               List<DataStream<DeadLetter>> deadLetters) {
        String name = pattern.kind().ruleId();
        SingleOutputStreamOperator<Tuple2<String, CepFact>> facts = events.flatMap(new FactsOf<>(pattern), FactsOf.TYPE)
                .uid("facts-" + name).name("facts " + name);
        DataStream<StampedFact> stamped = facts.connect(rules)
                .process(new StampFacts(pattern), new AvroTypeInfo<>(StampedFact.class))
                .uid("stamp-" + name).name("stamp " + name);
        return onLibrary(stamped, pattern, anchorTopic, sinks.lateFacts(), deadLetters, config.reconcileLate());
    }

    /**
     * One pattern on Flink's CEP library over facts stamped with the thresholds in force (the job stamps them in a
     * broadcast-connected step, uid {@code stamp-<pattern>}; this is also the entry point for tests): keyed by subject,
     * repeated event ids dropped ({@link RepeatedFacts}, uid {@code repeats-<pattern>}, chained to the CEP operator),
     * matched by the compiled {@link LibraryPatterns pattern} in event time (uid {@code cep-<pattern>}), then reconciled
     * ({@link LateReconciler}, uid {@code reconcile-<pattern>}) with the facts and the CEP operator's late data, so
     * that the alerts in effect do not depend on arrival order. Each late event is also on {@code <topic>.late},
     * written whole by the split after its source; the late facts are counted (metric {@code lateFacts}). Parcels get
     * two CEP operators, after a keyed step that adds each out-for-delivery scan's deadline fact
     * ({@link ParcelDeadlines}, uid {@code deadline-parcel-sla}): {@code cep-parcel-sla} (delivered, late or not) and
     * {@code cep-parcel-sla-deadline} (never delivered, at the deadline). Both see the same facts and watermark, so
     * only the first records late facts.
     */
    static DataStream<Alert> onLibrary(DataStream<StampedFact> stamped, SubjectPattern<?> pattern,
                                       Topic<String, ?> anchorTopic, Sink<StampedFact> lateFactsSink,
                                       List<DataStream<DeadLetter>> deadLetters) {
        return onLibrary(stamped, pattern, anchorTopic, lateFactsSink, deadLetters, true);
    }

    /**
     * As above; without {@code reconcileLate} the CEP operators' alerts are the pattern's (only to measure what the
     * reconciliation costs).
     */
    static DataStream<Alert> onLibrary(DataStream<StampedFact> stamped, SubjectPattern<?> pattern,
                                       Topic<String, ?> anchorTopic, Sink<StampedFact> lateFactsSink,
                                       List<DataStream<DeadLetter>> deadLetters, boolean reconcileLate) {
        String name = pattern.kind().ruleId();
        OutputTag<StampedFact> lateFacts = new OutputTag<>("late-facts-" + name, new AvroTypeInfo<>(StampedFact.class));
        // Keyed by subject once: the steps before the CEP operators keep that partitioning (chained to each other).
        KeyedStream<StampedFact, String> facts = DataStreamUtils.reinterpretAsKeyedStream(
                stamped.keyBy(StampedFact::getSubject, Types.STRING)
                        .process(new RepeatedFacts(), new AvroTypeInfo<>(StampedFact.class))
                        .uid("repeats-" + name).name("repeats " + name),
                StampedFact::getSubject, Types.STRING);
        if (pattern.kind() == PatternSettings.Kind.PARCEL_SLA) {
            facts = DataStreamUtils.reinterpretAsKeyedStream(facts
                    .process(new ParcelDeadlines(), new AvroTypeInfo<>(StampedFact.class))
                    .uid("deadline-" + name).name("deadline " + name), StampedFact::getSubject, Types.STRING);
        }
        SingleOutputStreamOperator<Alert> matched = CEP.pattern(facts, LibraryPatterns.of(pattern.kind()),
                        new LibraryPatterns.ByEventId())
                .inEventTime()
                .sideOutputLateData(lateFacts)
                .process(new AlertsOfMatches(pattern, anchorTopic.name()), new AvroTypeInfo<>(Alert.class))
                .uid("cep-" + name).name("cep " + name);
        deadLetters.add(matched.getSideOutput(AlertsOfMatches.DEAD_LETTERS));
        DataStream<StampedFact> late = matched.getSideOutput(lateFacts).map(new CountLateFacts())
                .uid("late-facts-" + name).name("late facts " + name);
        if (lateFactsSink != null || !reconcileLate) {
            // Without a sink of their own the late facts go on to the reconciliation only (they are counted on the way).
            late.sinkTo(lateFactsSink != null ? lateFactsSink : new DiscardingSink<>()).uid("sink-late-facts-" + name)
                    .name("late facts " + name + (lateFactsSink != null ? "" : " (counted)"));
        }
        DataStream<Alert> cepAlerts = matched;
        if (pattern.kind() == PatternSettings.Kind.PARCEL_SLA) {
            SingleOutputStreamOperator<Alert> neverDelivered = CEP.pattern(facts, LibraryPatterns.parcelDeadline(),
                            new LibraryPatterns.ByEventId())
                    .inEventTime()
                    .process(new AlertsOfMatches(pattern, anchorTopic.name()), new AvroTypeInfo<>(Alert.class))
                    .uid("cep-" + name + "-deadline").name("cep " + name + " deadline");
            deadLetters.add(neverDelivered.getSideOutput(AlertsOfMatches.DEAD_LETTERS));
            cepAlerts = matched.union(neverDelivered);
        }
        if (!reconcileLate) {
            return cepAlerts;
        }
        TypeInformation<Either<Alert, StampedFact>> alertOrLate =
                new EitherTypeInfo<>(new AvroTypeInfo<>(Alert.class), new AvroTypeInfo<>(StampedFact.class));
        DataStream<Either<Alert, StampedFact>> cepOutput = cepAlerts
                .map(a -> Either.<Alert, StampedFact>Left(a), alertOrLate).uid("cep-alerts-" + name)
                .name("cep alerts " + name)
                .union(late.map(f -> Either.<Alert, StampedFact>Right(f), alertOrLate).uid("cep-late-" + name)
                        .name("cep late " + name));
        SingleOutputStreamOperator<Alert> reconciled = stamped.keyBy(StampedFact::getSubject, Types.STRING)
                .connect(cepOutput.keyBy(CepJob::subjectOfOutput, Types.STRING))
                .process(new LateReconciler(pattern, anchorTopic.name()), new AvroTypeInfo<>(Alert.class))
                .uid("reconcile-" + name).name("reconcile " + name);
        deadLetters.add(reconciled.getSideOutput(AlertsOfMatches.DEAD_LETTERS));
        return reconciled;
    }

    private static String subjectOfOutput(Either<Alert, StampedFact> alertOrLate) {
        return alertOrLate.isLeft() ? alertOrLate.left().getSubject().getId() : alertOrLate.right().getSubject();
    }

    /** Counts the facts a CEP operator got behind its watermark (metric {@code lateFacts}); they are on the late topics. */
    static final class CountLateFacts extends RichMapFunction<StampedFact, StampedFact> {
        private transient Counter late;

        @Override
        public void open(OpenContext openContext) {
            late = getRuntimeContext().getMetricGroup().counter("lateFacts");
        }

        @Override
        public StampedFact map(StampedFact fact) {
            late.inc();
            return fact;
        }
    }

    private static <T extends SpecificRecord> DataStream<T> events(StreamExecutionEnvironment env, CepSources sources,
                                                                   Topic<String, T> topic, CepJobConfig config,
                                                                   RegistryClientFactory registry,
                                                                   List<DataStream<DeadLetter>> deadLetters,
                                                                   List<DataStream<LateRecord>> late) {
        SingleOutputStreamOperator<T> decoded = env
                .fromSource(sources.of(topic), EventTimeWatermarks.<T>forEvents(config,
                                EventTimeWatermarks.alignmentGroupOf(topic.name())), topic.name(),
                        WireDeserializationSchema.typeOf(topic.valueType()))
                .uid("source-" + topic.name()).name(topic.name())
                .process(new SplitDecoded<>(topic, registry), AvroTypes.of(topic.valueType()))
                .uid("split-" + topic.name()).name("split " + topic.name());
        deadLetters.add(decoded.getSideOutput(SplitDecoded.DEAD_LETTERS));
        late.add(decoded.getSideOutput(SplitDecoded.LATE));
        return decoded;
    }

    private static BroadcastStream<RuleDefinition> rules(StreamExecutionEnvironment env, CepSources sources,
                                                         List<DataStream<DeadLetter>> deadLetters) {
        SingleOutputStreamOperator<RuleDefinition> rules = env
                .fromSource(sources.of(Topics.RULES), EventTimeWatermarks.notEventTime(), Topics.RULES.name(),
                        WireDeserializationSchema.typeOf(RuleDefinition.class))
                .uid("source-" + Topics.RULES.name()).name(Topics.RULES.name())
                // One partition, one reader: a reader without a split would hold the pattern operators' watermark back.
                .setParallelism(1)
                .process(new ProcessFunction<Either<DeadLetter, RuleDefinition>, RuleDefinition>() {
                    @Override
                    public void processElement(Either<DeadLetter, RuleDefinition> in, Context ctx,
                                               Collector<RuleDefinition> out) {
                        if (in.isLeft()) {
                            ctx.output(SplitDecoded.DEAD_LETTERS, in.left());
                        } else {
                            out.collect(in.right());
                        }
                    }
                }, new AvroTypeInfo<>(RuleDefinition.class))
                .uid("split-" + Topics.RULES.name()).name("split " + Topics.RULES.name());
        deadLetters.add(rules.getSideOutput(SplitDecoded.DEAD_LETTERS));
        return rules.setParallelism(1).broadcast(StampFacts.RULES);
    }

    @SafeVarargs
    private static <T> DataStream<T> union(List<DataStream<T>> streams, DataStream<T>... none) {
        DataStream<T> first = streams.get(0);
        return streams.size() == 1 ? first : first.union(streams.subList(1, streams.size()).toArray(DataStream[]::new));
    }

    private CepJob() {
    }
}
