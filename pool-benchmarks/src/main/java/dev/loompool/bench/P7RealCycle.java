package dev.loompool.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * P7: what the pool costs on top of the real driver. Four platform threads over max 4 run
 * getConnection, a prepared {@code SELECT 1}, close. The floor is the same loop on four driver
 * connections held for the whole run, no pool: each trial measures the floor right before the
 * pool, so that the ratio pairs two runs under the same load of the shared host.
 *
 * <p>Each trial also reports the heap bytes one cycle allocates on the real driver (P6's measure
 * there), for the pool and for the floor, whose figure is pgjdbc's own allocation per query: one
 * thread runs the cycle, and the JVM's count of the bytes that thread allocated is read around it.
 */
final class P7RealCycle implements Scenario {

    static final int THREADS = 4;

    /**
     * P7tx instead: the cycle is a one-statement transaction, as Spring's
     * DataSourceTransactionManager runs it (getAutoCommit, setAutoCommit(false), the statement,
     * commit, setAutoCommit(true), close); the floor runs BEGIN, the statement, COMMIT on its held connections.
     */
    private final boolean transaction;

    P7RealCycle() {
        this(false);
    }

    P7RealCycle(boolean transaction) {
        this.transaction = transaction;
    }

    @Override
    public String id() {
        return transaction ? "P7tx" : "P7";
    }

    @Override
    public String title() {
        return transaction
                ? "PostgreSQL, 4 platform threads over max 4: a one-statement transaction as Spring runs it (setAutoCommit(false), "
                        + "prepared SELECT 1, commit, setAutoCommit(true), close); floor: the same on 4 held driver connections"
                : "PostgreSQL, 4 platform threads over max 4: getConnection, prepared SELECT 1, close; floor: 4 held driver connections";
    }

    @Override
    public String target() {
        return ">= 0.97x the floor and >= HikariCP's requests/s; p99 <= 1.2x the floor's";
    }

    @Override
    public Trial run(PoolKind pool, Mode mode) throws Exception {
        Trial floor = floor(mode);
        DataSource ds = pool.open(new PoolKind.Settings(Postgres.URL, null, null, THREADS, THREADS, Duration.ofSeconds(30)));
        try {
            Trial t = Load.run(pool, mode, THREADS, false, () -> PoolKind.connectionsOpened(ds), () -> cycle(ds));
            t.extra.put("floor req/s", Math.round(floor.perSecond()));
            t.extra.put("floor p99 ms", Math.round(floor.millis(0.99) * 1000) / 1000.0);
            t.extra.put("x floor", Math.round(t.perSecond() / floor.perSecond() * 1000) / 1000.0);
            int cycles = mode == Mode.FULL ? 50_000 : 5_000;
            t.extra.put("B/cycle", bytesPerCycle(cycles, () -> cycle(ds)));
            try (Connection held = DriverManager.getConnection(Postgres.URL)) {
                t.extra.put("floor B/cycle", bytesPerCycle(cycles, () -> held(held)));
            }
            return t;
        } finally {
            PoolKind.close(ds);
        }
    }

    /** One request through the pool. */
    private void cycle(DataSource ds) throws Exception {
        cycle(ds, transaction);
    }

    /** One request through the pool: P7's, or with {@code transaction} P7tx's. */
    static void cycle(DataSource ds, boolean transaction) throws Exception {
        try (Connection c = ds.getConnection()) {
            if (!transaction) {
                select(c);
                return;
            }
            boolean autoCommit = c.getAutoCommit(); // Spring's DataSourceTransactionManager.doBegin
            c.setAutoCommit(false);
            select(c);
            c.commit();
            c.setAutoCommit(autoCommit); // doCleanupAfterCompletion
        }
    }

    /** One request on a held connection: the same work, no pool. */
    private void held(Connection c) throws Exception {
        held(c, transaction);
    }

    /** One request on a held connection: P7's, or with {@code transaction} P7tx's. */
    static void held(Connection c, boolean transaction) throws Exception {
        if (!transaction) {
            select(c);
            return;
        }
        c.setAutoCommit(false);
        select(c);
        c.commit();
        c.setAutoCommit(true);
    }

    /** The loop on held connections: each thread keeps its own for the whole run, no pool logic at all. */
    private Trial floor(Mode mode) throws Exception {
        List<Connection> all = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            all.add(DriverManager.getConnection(Postgres.URL));
        }
        AtomicInteger next = new AtomicInteger();
        // A harness-side ThreadLocal, not the pool's: it only hands each load thread its connection.
        ThreadLocal<Connection> mine = ThreadLocal.withInitial(() -> all.get(next.getAndIncrement()));
        try {
            return Load.run(PoolKind.LOOMPOOL, mode, THREADS, false, () -> held(mine.get()));
        } finally {
            for (Connection c : all) {
                c.close();
            }
        }
    }

    /**
     * Heap bytes {@code cycle} allocates, per run, on this thread: the mean over {@code cycles} runs
     * after as many to warm up (the JIT's escape analysis decides what is allocated at all).
     */
    static long bytesPerCycle(int cycles, Load.Request cycle) throws Exception {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        for (int i = 0; i < cycles; i++) {
            cycle.run();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < cycles; i++) {
            cycle.run();
        }
        return Math.round((threads.getCurrentThreadAllocatedBytes() - before) / (double) cycles);
    }

    private static void select(Connection c) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1"); ResultSet rs = ps.executeQuery()) {
            rs.next();
        }
    }
}
