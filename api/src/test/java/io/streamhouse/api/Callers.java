package io.streamhouse.api;

import io.restassured.RestAssured;
import io.restassured.builder.RequestSpecBuilder;
import io.streamhouse.security.testing.TestTokens;

/** Who a test class's RestAssured requests go out as: a bearer token for a subject with roles, and forgetting it. */
public final class Callers {

    public static void authenticateAs(String subject, String... roles) {
        RestAssured.requestSpecification = new RequestSpecBuilder()
                .addHeader("Authorization", TestTokens.bearer(TestTokens.of(subject, roles))).build();
    }

    public static void forget() {
        RestAssured.requestSpecification = null;
    }

    private Callers() {
    }
}
