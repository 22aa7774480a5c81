package dev.loompool;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A factory and destructor of {@link Res} that fails on command, can hold a creation at a
 * {@link Gate}, and counts what it made and destroyed.
 */
final class StubFactory implements ResourceFactory<Res>, ResourceDestructor<Res> {

    final AtomicInteger created = new AtomicInteger();
    final AtomicInteger destroyed = new AtomicInteger();
    final List<Res> all = new CopyOnWriteArrayList<>();
    private final BlockingQueue<Throwable> failures = new LinkedBlockingQueue<>();
    volatile Gate gate;

    /** The next {@code create} throws {@code failure}. */
    StubFactory failNext(Exception failure) {
        failures.add(failure);
        return this;
    }

    /** The next {@code create} throws {@code failure}, an Error. */
    StubFactory failNext(Error failure) {
        failures.add(failure);
        return this;
    }

    boolean failuresPending() {
        return !failures.isEmpty();
    }

    @Override
    public Res create() throws Exception {
        Gate g = gate;
        if (g != null) {
            g.pass();
        }
        Throwable failure = failures.poll();
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure != null) {
            throw (Exception) failure;
        }
        Res res = new Res(created.incrementAndGet());
        all.add(res);
        return res;
    }

    @Override
    public void destroy(Res resource) {
        resource.destroyed.incrementAndGet();
        destroyed.incrementAndGet();
    }

    int live() {
        return created.get() - destroyed.get();
    }
}
