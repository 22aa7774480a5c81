package dev.loompool;

import java.util.concurrent.atomic.AtomicInteger;

/** A stub resource that remembers how often it was destroyed and by which thread it was made. */
final class Res {

    final int id;
    final String createdBy = Thread.currentThread().getName();
    final AtomicInteger destroyed = new AtomicInteger();
    volatile boolean healthy = true;

    Res(int id) {
        this.id = id;
    }

    @Override
    public String toString() {
        return "Res#" + id;
    }
}
