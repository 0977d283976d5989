/** Who may call what: roles, development keys and tokens (JDK only); {@code http} holds the apps' shared HTTP checks. */
package io.streamhouse.security;
