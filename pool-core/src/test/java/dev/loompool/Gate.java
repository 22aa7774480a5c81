package dev.loompool;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Holds the first thread that passes until the test opens it, so the test can look meanwhile. */
final class Gate {

    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch open = new CountDownLatch(1);

    /** A gate that lets everybody through: for a scenario that stops nobody where a replay stops a thread. */
    static Gate opened() {
        Gate gate = new Gate();
        gate.open();
        return gate;
    }

    void pass() throws InterruptedException {
        entered.countDown();
        if (!open.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("gate never opened");
        }
    }

    void awaitEntered() throws InterruptedException {
        if (!entered.await(30, TimeUnit.SECONDS)) {
            throw new AssertionError("nobody reached the gate");
        }
    }

    void open() {
        open.countDown();
    }
}
