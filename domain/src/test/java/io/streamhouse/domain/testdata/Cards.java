package io.streamhouse.domain.testdata;

/** Card tokens used across tests (never a card number: tokens are all that ever reaches a topic). */
public final class Cards {
    public static final String ALICE = "tok_alice_0001";
    public static final String BOB = "tok_bob_0002";
    public static final String STOLEN = "tok_stolen_0666";

    private Cards() {
    }
}
