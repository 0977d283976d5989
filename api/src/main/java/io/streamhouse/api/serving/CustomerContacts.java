package io.streamhouse.api.serving;

import io.streamhouse.security.Roles;

import java.util.Set;

/**
 * Who sees a customer's contact fields (e-mail, full name) in clear: only a {@code reviewer}, who may have to reach
 * or identify the customer while deciding a held payment. Every other caller that may read a customer (an
 * {@code agent} through MCP) gets them masked: the first letter of the e-mail's local part and its domain
 * ({@code j***@example.com}), the initials of the name ({@code J. D.}) — enough to tell two customers apart in an
 * answer, not to contact one. Applied where an answer leaves the api (REST and MCP), never inside the store or
 * the forwarding between instances, so every instance masks alike (docs/pii.md).
 */
public final class CustomerContacts {
    /** Roles that see contact fields in clear. */
    public static final Set<String> IN_CLEAR = Set.of(Roles.REVIEWER);

    public static Views.CustomerView forRoles(Views.CustomerView view, Set<String> roles) {
        if (view == null || roles.stream().anyMatch(IN_CLEAR::contains)) {
            return view;
        }
        return new Views.CustomerView(view.customerId(), email(view.email()), name(view.fullName()), view.registeredAt(),
                view.deleted(), view.orderCount(), view.spend(), view.orders(), view.lastDecisions(), view.cards(),
                view.openAlerts(), view.risk(), view.incomplete(), view.meta());
    }

    static String email(String email) {
        if (email == null || email.isEmpty()) {
            return email;
        }
        int at = email.lastIndexOf('@');
        if (at <= 0) {
            return "***";
        }
        return email.charAt(0) + "***" + email.substring(at);
    }

    static String name(String fullName) {
        if (fullName == null || fullName.isBlank()) {
            return fullName;
        }
        StringBuilder initials = new StringBuilder();
        for (String part : fullName.trim().split("\\s+")) {
            if (initials.length() > 0) {
                initials.append(' ');
            }
            initials.appendCodePoint(part.codePointAt(0)).append('.');
        }
        return initials.toString();
    }

    private CustomerContacts() {
    }
}
