/**
 * The parameters of the CEP job's patterns as data: thresholds that operators change at runtime by publishing a new
 * {@code RuleDefinition} of a {@code cep-*} kind to {@code rules.definitions}. Pure, no framework: the Flink job
 * (detection) reads them from broadcast state, the rules admin endpoint validates them.
 */
package io.streamhouse.domain.detection;
