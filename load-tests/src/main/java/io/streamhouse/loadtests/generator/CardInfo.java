package io.streamhouse.loadtests.generator;

/**
 * A generated card: the token the generator's events carry, the test PAN the HTTP target sends instead (see
 * {@link TestPans}), and its owner.
 *
 * @param planted true for cards created for a planted anomaly (a stolen or cloned card), never used by normal traffic
 */
public record CardInfo(int index, String token, String pan, String customerId, boolean planted) {
}
