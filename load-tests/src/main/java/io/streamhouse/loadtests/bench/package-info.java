/**
 * Benchmarks run against a running Streamhouse ({@code ./streamhouse up --no-demo}) on this machine, each with
 * Kafka's own figure for the same broker measured in the same run as its baseline, because the machines are
 * shared and noisy and only ratios compare. Not tests: nothing here asserts a time; the figures go to
 * docs/benchmarks.md with the command that produced them. Loopback targets only; every phase is bounded.
 */
package io.streamhouse.loadtests.bench;
