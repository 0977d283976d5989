/**
 * Pure fraud decision logic: rules built from versioned definitions, combined into ALLOW / REVIEW / BLOCK with
 * every reason. No clock, no I/O: the same events give the same decisions live and on replay.
 */
package io.streamhouse.domain.decision;
