package io.streamhouse.lake;

import io.streamhouse.domain.topic.LakeNames;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Entry point of the short-lived child JVM that creates the lake's tables ({@link LakeTables#ensure}) before the
 * sink starts. Only {@link LakeTablesProcess} is meant to start it: {@code --catalog <properties file>} names the
 * Iceberg catalog properties ({@code catalog-impl}, {@code uri}, {@code warehouse}, ...).
 *
 * <p>Exit 0 after one stdout line {@value #DONE_PREFIX}{@code created=… evolved=… unchanged=… recreated=…};
 * exit 1 with the reason on stderr when the catalog cannot be reached or a table cannot be created; exit 2 on
 * bad arguments.
 */
public final class LakeTablesMain {

    public static final String DONE_PREFIX = "STREAMHOUSE-LAKE-TABLES ";

    private LakeTablesMain() {
    }

    public static void main(String[] args) {
        Path catalogFile = null;
        for (int i = 0; i < args.length; i++) {
            if ("--catalog".equals(args[i]) && i + 1 < args.length) {
                catalogFile = Path.of(args[++i]);
            } else {
                System.err.println("usage: LakeTablesMain --catalog <properties file>; unexpected " + args[i]);
                System.exit(2);
            }
        }
        if (catalogFile == null) {
            System.err.println("usage: LakeTablesMain --catalog <properties file>");
            System.exit(2);
        }
        try {
            Map<String, String> props = load(catalogFile);
            Catalog catalog = CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, props,
                    new org.apache.hadoop.conf.Configuration());
            LakeTables.Outcome outcome;
            try {
                outcome = LakeTables.ensure(catalog, LakeNames.landed());
            } finally {
                if (catalog instanceof AutoCloseable closeable) {
                    closeable.close();
                }
            }
            System.out.println(DONE_PREFIX + "created=" + outcome.created() + " evolved=" + outcome.evolved()
                    + " unchanged=" + outcome.unchanged().size() + " recreated=" + outcome.recreated());
            System.out.flush();
            System.exit(0);
        } catch (Exception | LinkageError e) {
            System.err.println("cannot create the lake's tables: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
        }
    }

    private static Map<String, String> load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
        }
        Map<String, String> out = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> out.put(k, p.getProperty(k)));
        return out;
    }
}
