package io.streamhouse.launcher;

import io.streamhouse.lakequery.LakeQueryMain;
import io.streamhouse.lakequery.LakeQueryOptions;
import io.streamhouse.lakequery.LakeQueryProcess;
import io.streamhouse.supervisor.ChildSpec;
import io.streamhouse.supervisor.Readiness;
import io.streamhouse.supervisor.SupervisedChild;
import io.streamhouse.supervisor.SupervisedComponent;
import io.streamhouse.supervisor.Supervisor;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The lake's query service ({@code LakeQueryMain}: snapshot SQL, and the lake's maintenance) as a spec for the
 * {@link Supervisor}, component {@value #COMPONENT}: the same command line {@link LakeQueryProcess} builds, ready on
 * its ready line on stdout, output in {@code <logs>/sql.log}. The port is fixed before the first start, so the api's
 * {@code STREAMHOUSE_LAKE_QUERY_URL} stays right across restarts; it stops when this process closes its stdin, or dies.
 */
final class SqlProcess implements SupervisedComponent {
    static final String COMPONENT = "sql";
    static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    static final Duration STOP_GRACE = Duration.ofSeconds(15);

    private final SupervisedChild child;
    private final URI url;

    private SqlProcess(SupervisedChild child, URI url) {
        this.child = child;
        this.url = url;
    }

    /** Starts the service under {@code supervisor} on {@code options.port()} and returns once it answers. */
    static SqlProcess start(LakeQueryOptions options, Path logDir, Supervisor supervisor) throws IOException {
        if (options.port() == 0) {
            throw new IllegalArgumentException("the query service needs its port fixed before the start");
        }
        LakeQueryProcess.Launch launch = LakeQueryProcess.launch(options, options.port());
        Files.createDirectories(logDir);
        Path log = logDir.resolve(COMPONENT + ".log");
        Files.deleteIfExists(log); // one log per up; restarts append to it
        ChildSpec spec = new ChildSpec(COMPONENT, launch.command(), launch.environment(), launch.workingDir(), log,
                new Readiness.StdoutLine(LakeQueryMain.READY_PREFIX), START_TIMEOUT, STOP_GRACE);
        SupervisedChild child = supervisor.start(spec);
        child.releaseShutdownHook(); // the launcher stops its children in order
        return new SqlProcess(child, URI.create("http://127.0.0.1:" + options.port()));
    }

    URI url() {
        return url;
    }

    @Override
    public SupervisedChild supervised() {
        return child;
    }
}
