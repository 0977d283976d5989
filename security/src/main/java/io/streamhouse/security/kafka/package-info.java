/** How every Kafka client authenticates: the one place its security settings come from (JDK only, no Kafka classes). */
package io.streamhouse.security.kafka;
