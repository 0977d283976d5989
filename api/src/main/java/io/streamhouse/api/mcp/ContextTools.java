package io.streamhouse.api.mcp;

import io.quarkiverse.mcp.server.Tool;
import io.streamhouse.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.streamhouse.api.decisions.DecisionQueries;
import io.streamhouse.api.decisions.DecisionView;
import io.streamhouse.api.rules.RuleBook;
import io.streamhouse.api.rules.RuleView;
import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.projections.DecisionLookupProjection;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The generic tools, named like Confluent's real-time context engine: what is on the log ({@code listTopics}), what
 * one topic or store is ({@code getMetadata}), and a key lookup on a store ({@code queryData}).
 */
@AuditedTools
public class ContextTools {
    private final ToolResults results;
    private final TopicCatalog topics;
    private final DecisionQueries decisions;
    private final RuleBook rules;
    private final ServingProjections projections;

    public ContextTools(ToolResults results, TopicCatalog topics, DecisionQueries decisions, RuleBook rules,
                        ServingProjections projections) {
        this.results = results;
        this.topics = topics;
        this.decisions = decisions;
        this.rules = rules;
        this.projections = projections;
    }

    /** Stores this app serves itself, beside the serving projections'. */
    static final List<ServingProjections.Store> OWN_STORES = List.of(
            new ServingProjections.Store(DecisionLookupProjection.STORE,
                    "the latest decision (ALLOW / REVIEW / BLOCK) of each payment with every reason, the rule-set "
                            + "version used and the decision latency; fed from payments.transactions.decisions",
                    "transaction id", "TransactionDecision", "why_blocked"),
            new ServingProjections.Store(DecisionTopology.RULES_STORE,
                    "the rule definitions in force (latest version of each rule); fed from rules.definitions, "
                            + "on every instance", "rule id", "RuleDefinition", null));

    private List<ServingProjections.Store> stores() {
        List<ServingProjections.Store> all = new ArrayList<>(OWN_STORES);
        all.addAll(projections.stores());
        return all;
    }

    @RolesAllowed({Roles.AGENT, Roles.OPS})
    @Tool(name = "listTopics", description = "Lists the topics of the Streamhouse event log: description, partitions, "
            + "key and value types, schema subject, cleanup policy, retention, dead-letter topic, and the live end "
            + "offset (records written so far, summed over partitions) from the broker.",
            annotations = @Tool.Annotations(readOnlyHint = true, openWorldHint = false))
    public ToolResponse listTopics() {
        return results.guard("listTopics", () -> results.json(topics.list()));
    }

    @RolesAllowed({Roles.AGENT, Roles.OPS})
    @Tool(name = "getMetadata", description = "Describes one topic or one queryable store by name. For a topic: the "
            + "latest value schema from the schema registry, partitions with leaders and end offsets, cleanup policy "
            + "and retention as configured on the broker. For a store: what it holds, its key and value, and the tool "
            + "that answers from it.", annotations = @Tool.Annotations(readOnlyHint = true, openWorldHint = false))
    public ToolResponse getMetadata(@ToolArg(name = "name", description = "a topic name (e.g. payments.transactions.decisions) "
            + "or a store name (e.g. decisions-by-transaction)") String name) {
        return results.guard("getMetadata", () -> {
            if (name == null || name.isBlank()) {
                throw new ToolResults.Refusal("name is required: a topic or store name");
            }
            var topic = TopicCatalog.find(name.trim());
            if (topic.isPresent()) {
                return results.json(topics.metadata(topic.get()));
            }
            Optional<ServingProjections.Store> store = stores().stream().filter(s -> s.name().equals(name.trim())).findFirst();
            if (store.isPresent()) {
                Map<String, Object> meta = new LinkedHashMap<>();
                meta.put("kind", "store");
                meta.put("name", store.get().name());
                meta.put("holds", store.get().holds());
                meta.put("key", store.get().key());
                meta.put("value", store.get().value());
                meta.put("queryWith", "queryData(store=\"" + store.get().name() + "\", key=<" + store.get().key() + ">)"
                        + (store.get().domainTool() == null ? "" : " or " + store.get().domainTool()));
                return results.json(meta);
            }
            throw new ToolResults.Refusal("unknown topic or store '" + name + "'. Topics: "
                    + TopicCatalog.joined(TopicCatalog.names()) + ". Stores: "
                    + TopicCatalog.joined(stores().stream().map(ServingProjections.Store::name).toList()));
        });
    }

    @RolesAllowed(Roles.AGENT)
    @Tool(name = "queryData", description = "Looks up one key in a queryable store (always-current state): "
            + "decisions-by-transaction by transaction id, rules-definitions-global by rule id, and the serving "
            + "projections' stores where this build has them (see getMetadata / the error listing the stores).",
            annotations = @Tool.Annotations(readOnlyHint = true, openWorldHint = false))
    public ToolResponse queryData(
            @ToolArg(name = "store", description = "store name, e.g. decisions-by-transaction") String store,
            @ToolArg(name = "key", description = "the key to look up, e.g. a transaction id") String key,
            @ToolArg(name = "asOf", description = "optional ISO-8601 instant: the key's state at that time, for stores "
                    + "that keep history", required = false) String asOf) {
        return results.guard("queryData", () -> {
            if (store == null || store.isBlank()) {
                throw new ToolResults.Refusal("store is required. Stores: "
                        + TopicCatalog.joined(stores().stream().map(ServingProjections.Store::name).toList()));
            }
            String name = store.trim();
            Instant at = ToolResults.optionalInstant("asOf", asOf);
            if (name.equals(DecisionLookupProjection.STORE)) {
                noHistory(name, at);
                String id = ToolResults.requireId("key (transaction id)", key);
                return decisions.decision(id).map(d -> results.json(DecisionView.of(d)))
                        .orElseThrow(() -> new ToolResults.Refusal("no decision is recorded for transaction " + id
                                + " in " + name + " (unknown, or not decided yet)"));
            }
            if (name.equals(DecisionTopology.RULES_STORE)) {
                noHistory(name, at);
                String id = ToolResults.requireId("key (rule id)", key);
                return rules.current(id).map(r -> results.json(RuleView.of(r)))
                        .orElseThrow(() -> new ToolResults.Refusal("no rule " + id + " in " + name + ". Rules: "
                                + TopicCatalog.joined(rules.current().keySet())));
            }
            if (projections.stores().stream().anyMatch(s -> s.name().equals(name))) {
                String id = ToolResults.requireId("key", key);
                return DomainTools.answer(results, projections.lookup(name, id, at));
            }
            throw new ToolResults.Refusal("unknown store '" + store + "'. Stores: "
                    + TopicCatalog.joined(stores().stream().map(ServingProjections.Store::name).toList()));
        });
    }

    private static void noHistory(String store, Instant asOf) {
        if (asOf != null) {
            throw new ToolResults.Refusal(store + " keeps only the current value of each key: asOf is not supported on it");
        }
    }
}
