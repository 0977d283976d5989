package io.streamhouse.loadtests.generator;

import java.time.Instant;

/**
 * A customer of the generated world. Addresses and e-mails change during the run (see the CustomerEvents); this is
 * who they are and since when.
 *
 * @param registeredAt   account creation: before the run for the initial customers, during it for sign-ups
 * @param signedUpDuringRun true when a CustomerRegistered event for them is in the stream
 * @param homeHub        the hub of the city where they live and shop in person
 */
public record CustomerInfo(String customerId, String fullName, Instant registeredAt, boolean signedUpDuringRun,
                           String homeHub) {
}
