package io.streamhouse.broker;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A stand-in for an application JVM: starts a broker, prints the broker's PID, then waits to be killed. Used by
 * {@link BrokerOrphanIT} to prove that {@code kill -9} of the parent leaves no broker behind.
 */
public final class OrphanParentMain {
    private OrphanParentMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        BrokerProcess broker = BrokerProcess.start(BrokerOptions.ephemeral(Path.of(args[0])));
        System.out.println("BROKER-PID " + broker.pid());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
