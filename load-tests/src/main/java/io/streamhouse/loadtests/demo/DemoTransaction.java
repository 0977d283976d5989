package io.streamhouse.loadtests.demo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.event.DecisionOutcome;

/** One generated request body and the decision the built-in rules must give it (the ground truth). */
public record DemoTransaction(String transactionId, ObjectNode body, DecisionOutcome expected) {
}
