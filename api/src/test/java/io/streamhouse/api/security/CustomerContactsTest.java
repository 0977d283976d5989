package io.streamhouse.api.security;

import io.streamhouse.api.serving.CustomerContacts;
import io.streamhouse.api.sql.ContactTables;
import io.streamhouse.api.serving.Views;
import io.streamhouse.security.Roles;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Who sees a customer's contact fields in clear: every role, one by one (docs/pii.md). */
public class CustomerContactsTest {
    public static final Views.CustomerView ADA = new Views.CustomerView("c-1", "ada.lovelace@example.com", "Ada King Lovelace",
            Instant.parse("2026-03-02T09:00:00Z"), false, 2, Map.of("EUR", "12.00"), List.of(), List.of(), List.of("tok_a"),
            List.of(), new Views.RiskView("LOW", List.of()), List.of(), null);

    @Test
    void onlyAReviewerSeesContactFieldsInClear() {
        for (String role : Roles.ALL) {
            Views.CustomerView seen = CustomerContacts.forRoles(ADA, Set.of(role));
            if (role.equals(Roles.REVIEWER)) {
                assertThat(seen).as(role).isSameAs(ADA);
            } else {
                assertThat(seen.email()).as(role).isEqualTo("a***@example.com");
                assertThat(seen.fullName()).as(role).isEqualTo("A. K. L.");
                assertThat(seen).as(role + ": everything else as it was").usingRecursiveComparison()
                        .ignoringFields("email", "fullName").isEqualTo(ADA);
            }
        }
        assertThat(CustomerContacts.forRoles(ADA, Set.of())).as("no role").extracting(Views.CustomerView::email)
                .isEqualTo("a***@example.com");
        assertThat(CustomerContacts.forRoles(ADA, Set.of(Roles.AGENT, Roles.REVIEWER))).isSameAs(ADA);
    }

    @Test
    void snapshotSqlNamingAContactTableIsFoundHoweverItIsWritten() {
        assertThat(ContactTables.named("SELECT email FROM kafka.streamhouse.shop_customers")).contains("shop_customers");
        assertThat(ContactTables.named("select * from lake.streamhouse.`Shop_Orders`")).contains("shop_orders");
        assertThat(ContactTables.named("SELECT * FROM \"shop_cdc_changes\"")).contains("shop_cdc_changes");
        assertThat(ContactTables.named("SELECT * FROM U&\"shop\\005fcustomers\"")).isPresent();
        assertThat(ContactTables.named("SELECT outcome, COUNT(*) FROM kafka.streamhouse.payments_transactions_decisions GROUP BY outcome"))
                .isEmpty();
        assertThat(ContactTables.MAY_QUERY).containsExactlyInAnyOrder(Roles.ANALYST, Roles.REVIEWER);
    }
}
