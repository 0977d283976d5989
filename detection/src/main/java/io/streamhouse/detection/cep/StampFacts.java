package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.CepThresholds;
import io.streamhouse.domain.state.StampedFact;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.functions.co.BroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;

/**
 * The broadcast-connected step before a CEP library pattern: stamps each fact with its pattern's thresholds and the
 * version of the {@code cep-*} definition in force when the fact passes (the built-in defaults, version 1, until one
 * arrives), so the compiled pattern's conditions read thresholds that change at runtime. Facts the pattern cannot use
 * under those thresholds (a mid-size payment for card testing), and every fact while the pattern is disabled, stop here.
 *
 * <p>A definition is refused, logged, and the last valid one stays in force, when it is invalid or asks for a window
 * longer than the pattern's {@code within} ({@link LibraryPatterns#refusal}); an older version than the one in force
 * is ignored. The state is the broadcast state {@link #RULES}, one entry: this
 * pattern's definition.
 */
final class StampFacts extends BroadcastProcessFunction<Tuple2<String, CepFact>, RuleDefinition, StampedFact> {
    /** The broadcast state of every stamping step: the {@code cep-*} definition in force, by rule id. */
    static final MapStateDescriptor<String, RuleDefinition> RULES = new MapStateDescriptor<>(
            "cep-pattern-rules", Types.STRING, new AvroTypeInfo<>(RuleDefinition.class));

    private static final Logger LOG = LoggerFactory.getLogger(StampFacts.class);

    private final SubjectPattern<?> pattern;
    private transient PatternSettings settings;
    private transient CepThresholds stamp;

    StampFacts(SubjectPattern<?> pattern) {
        this.pattern = pattern;
    }

    @Override
    public void processElement(Tuple2<String, CepFact> subjectAndFact, ReadOnlyContext ctx,
                               Collector<StampedFact> out) throws Exception {
        if (settings == null) {
            RuleDefinition d = ctx.getBroadcastState(RULES).get(pattern.kind().ruleId());
            settings = d == null ? PatternSettings.defaults() : PatternSettings.defaults().with(d);
            stamp = Thresholds.of(settings, pattern.kind());
        }
        if (!pattern.enabled(settings) || !pattern.keeps(subjectAndFact.f1, settings)) {
            return;
        }
        out.collect(new StampedFact(subjectAndFact.f0, subjectAndFact.f1, stamp));
    }

    @Override
    public void processBroadcastElement(RuleDefinition rule, Context ctx, Collector<StampedFact> out) throws Exception {
        if (!pattern.kind().ruleId().equals(rule.getKind())) {
            return;
        }
        BroadcastState<String, RuleDefinition> rules = ctx.getBroadcastState(RULES);
        RuleDefinition current = rules.get(rule.getRuleId());
        if (current != null && current.getVersion() > rule.getVersion()) {
            return;
        }
        Optional<String> refused;
        try {
            refused = LibraryPatterns.refusal(PatternSettings.defaults().with(rule), pattern.kind());
        } catch (IllegalArgumentException e) {
            refused = Optional.of(e.getMessage());
        }
        if (refused.isPresent()) {
            LOG.warn("Ignoring pattern rule {} v{}: {}; the version in force stays", rule.getRuleId(),
                    rule.getVersion(), refused.get());
            return;
        }
        rules.put(rule.getRuleId(), rule);
        settings = null;
    }
}
