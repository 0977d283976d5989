package io.streamhouse.lake;

import io.streamhouse.domain.topic.LakeNames;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * Entry point of the short-lived child JVM that audits the lake ({@link LakeAudit}) for a process without Iceberg on
 * its classpath ({@link LakeAuditProcess}). Arguments: {@code --catalog <properties file> --bootstrap <servers>
 * --dead-letter-topic <topic>}. Prints one line {@value #LINE_PREFIX}{@code <topic> rows=… committed=…
 * deadLettered=… missing=… extra=… duplicates=… examples=…} per landed topic; exit 0 when every table equals its
 * topic, 1 when one does not, 2 on bad arguments, 3 when the catalog or the broker cannot be read.
 */
public final class LakeAuditMain {

    public static final String LINE_PREFIX = "STREAMHOUSE-LAKE-AUDIT ";

    private LakeAuditMain() {
    }

    public static void main(String[] args) {
        Map<String, String> a = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.put(args[i], args[i + 1]);
        }
        if (args.length % 2 != 0 || !a.keySet().equals(Set.of("--catalog", "--bootstrap", "--dead-letter-topic"))) {
            System.err.println("usage: LakeAuditMain --catalog <properties file> --bootstrap <servers> --dead-letter-topic <topic>");
            System.exit(2);
        }
        try {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(Path.of(a.get("--catalog")))) {
                p.load(r);
            }
            Map<String, String> props = new TreeMap<>();
            p.stringPropertyNames().forEach(k -> props.put(k, p.getProperty(k)));
            Duration timeout = Duration.ofSeconds(60);
            String bootstrap = a.get("--bootstrap");
            Map<String, Set<LakeAudit.Coordinate>> dead = LakeAudit.deadLettered(bootstrap, a.get("--dead-letter-topic"), timeout);
            boolean equal = true;
            Catalog catalog = CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, props, new org.apache.hadoop.conf.Configuration());
            try {
                for (var topic : LakeNames.landed()) {
                    // The table first: a record that lands after this scan can only show as missing (the caller
                    // polls until it lands), never as an extra row; extra and duplicate rows are never a race.
                    var rows = LakeAudit.landed(catalog, topic.name());
                    var committed = LakeAudit.readCommitted(bootstrap, topic.name(), timeout);
                    LakeAudit.TopicAudit t = LakeAudit.compare(topic.name(), rows, committed, dead.getOrDefault(topic.name(), Set.of()));
                    equal &= t.equal();
                    System.out.println(LINE_PREFIX + t.topic() + " rows=" + t.rows() + " committed=" + t.committed()
                            + " deadLettered=" + t.deadLettered() + " missing=" + t.missing() + " extra=" + t.extra()
                            + " duplicates=" + t.duplicateRows() + " examples=" + String.join(";", t.examples()).replace(' ', '_'));
                }
            } finally {
                if (catalog instanceof AutoCloseable closeable) {
                    closeable.close();
                }
            }
            System.out.flush();
            System.exit(equal ? 0 : 1);
        } catch (Exception | LinkageError e) {
            System.err.println("cannot audit the lake: " + e);
            e.printStackTrace();
            System.exit(3);
        }
    }
}
