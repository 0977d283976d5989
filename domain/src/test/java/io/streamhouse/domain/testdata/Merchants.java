package io.streamhouse.domain.testdata;

import io.streamhouse.domain.event.Merchant;

/** Merchants used across tests. */
public final class Merchants {
    public static final Merchant GROCER_ROTTERDAM = merchant("m-grocer-rtm", "Verse Markt Rotterdam", "5411", "NL");
    public static final Merchant CASINO_MALTA = merchant("m-casino-mla", "Golden Reel Valletta", "7995", "MT");
    public static final Merchant JEWELLER_ANTWERP = merchant("m-jewel-anr", "Diamantkwartier", "5944", "BE");

    private static Merchant merchant(String id, String name, String mcc, String country) {
        return Merchant.newBuilder().setMerchantId(id).setName(name).setMcc(mcc).setCountry(country).build();
    }

    private Merchants() {
    }
}
