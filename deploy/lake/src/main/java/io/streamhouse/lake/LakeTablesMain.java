package io.streamhouse.lake;


import java.nio.file.Path;

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
            LakeTables.Outcome outcome = LakeTables.ensureLanded(LakeTables.readProperties(catalogFile));
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
}
