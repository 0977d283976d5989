/** The api's side of the audit trail: the lost-events gauge (the trail itself is io.streamhouse.security.audit). */
package io.streamhouse.api.audit;
