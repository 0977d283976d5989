package io.streamhouse.api.sql;

import io.streamhouse.security.Roles;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The tables of snapshot SQL that hold customers' contact data: e-mail and address ({@code shop_customers}), shipping
 * addresses ({@code shop_orders}) and the raw shop rows ({@code shop_cdc_changes}), in the lake and on the live log
 * alike. SQL answers rows as they are, so a role that must not see contact data (an {@code agent}) is refused a query
 * that names one of them, rather than masked (docs/pii.md). A name is found however it is quoted or
 * cased; a Unicode-escaped identifier ({@code U&"..."}) is refused too, since it could spell one.
 */
public final class ContactTables {
    /** Roles that may query the contact tables. */
    public static final Set<String> MAY_QUERY = Set.of(Roles.ANALYST, Roles.REVIEWER);
    static final List<String> TABLES = List.of("shop_customers", "shop_orders", "shop_cdc_changes");

    /** The contact table {@code sql} names (or why it may name one), if any. */
    public static Optional<String> named(String sql) {
        if (sql == null) {
            return Optional.empty();
        }
        String plain = sql.toLowerCase(Locale.ROOT).replace("\"", "").replace("`", "");
        if (plain.contains("u&")) {
            return Optional.of("a Unicode-escaped identifier (U&)");
        }
        return TABLES.stream().filter(plain::contains).findFirst();
    }

    private ContactTables() {
    }
}
