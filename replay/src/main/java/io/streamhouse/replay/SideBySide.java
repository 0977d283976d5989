package io.streamhouse.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Jobs that share nothing, run each on its own thread: their results in the order of the jobs, once every job has
 * ended. A job that failed is reported after all have ended (none is left running behind the command), the first
 * failure in job order thrown as it was thrown.
 */
final class SideBySide {

    static <T> List<T> run(String name, List<Callable<T>> jobs) throws Exception {
        if (jobs.size() == 1) {
            return List.of(jobs.get(0).call());
        }
        ExecutorService pool = Executors.newFixedThreadPool(jobs.size(), r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> job : jobs) {
                futures.add(pool.submit(job));
            }
            List<T> results = new ArrayList<>();
            Exception first = null;
            for (Future<T> f : futures) {
                try {
                    results.add(f.get());
                } catch (ExecutionException e) {
                    if (first == null) {
                        first = e.getCause() instanceof Exception cause ? cause : e;
                    }
                }
            }
            if (first != null) {
                throw first;
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    private SideBySide() {
    }
}
