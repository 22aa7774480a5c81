package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The borrower scenarios of the pin-semantics form on the real databases, as static steps a test
 * imports (held, not inherited): borrower A does something, borrower B on the same physical
 * connection looks; a watchdog that cleans up A's stuck handle; many borrowers at once.
 */
final class BorrowerScenarios {

    private BorrowerScenarios() {
    }

    // ---- a watchdog's cleanup while A's call is on its way to the driver ---------------------------

    /** {@code ds} through {@link GateDriver}, waiting up to 10 s for a connection while a gate holds one. */
    static LoomPoolDataSource gated(LoomPoolDataSource ds) {
        GateDriver.route(ds, ds.getJdbcUrl());
        ds.setAcquireTimeout(java.time.Duration.ofSeconds(10));
        return ds;
    }


    /** A watchdog's usual cleanup of a stuck handle, which makes its thread the connection's runner. */
    static void rollbackThenClose(Connection a) throws SQLException {
        try {
            a.rollback();
        } finally {
            a.close();
        }
    }

    // ---- borrower A, then borrower B ----------------------------------------------------------------

    /** What a borrower does on its handle. */
    @FunctionalInterface
    interface Use {
        void on(Connection c) throws SQLException;
    }

    /** What a borrower reads on its handle. */
    @FunctionalInterface
    interface Look {
        String on(Connection c) throws SQLException;
    }

    /** What borrower B saw, and on which backend: A's, or a new one because the pool retired A's. */
    record Seen(long aBackend, long bBackend, String value) {
        /** For failure messages: "B on A's backend 12 saw [x]". */
        @Override
        public String toString() {
            return (aBackend == bBackend ? "B on A's backend " + aBackend : "B on a new backend " + bBackend
                    + " (A's " + aBackend + " was retired)") + " saw [" + value + "]";
        }
    }

    /**
     * Borrower A uses a handle of {@code ds} (maxSize 1) and closes it; borrower B then borrows the
     * pool's only connection and looks. A's backend is read on a handle of its own before A's:
     * however the pool classifies that read, A's handle starts clean and lets go by A's SQL alone.
     */
    static Seen pgAfterA(LoomPoolDataSource ds, Use a, Look b) throws SQLException {
        return afterA(ds, PlainQueries::pgPidUnpinned, a, b);
    }

    /** {@link #pgAfterA} on MariaDB, with either Connector/J. */
    static Seen mariaAfterA(LoomPoolDataSource ds, Use a, Look b) throws SQLException {
        return afterA(ds, PlainQueries::myIdUnpinned, a, b);
    }

    private static Seen afterA(LoomPoolDataSource ds, Backend backend, Use a, Look b) throws SQLException {
        long aBackend;
        try (Connection c = ds.getConnection()) {
            aBackend = backend.of(c);
        }
        try (Connection c = ds.getConnection()) {
            a.on(c);
        }
        try (Connection c = ds.getConnection()) {
            return new Seen(aBackend, backend.of(c), b.on(c));
        }
    }

    /** How a test reads a handle's backend id. */
    @FunctionalInterface
    interface Backend {
        long of(Connection c) throws SQLException;
    }

    /**
     * Borrower A reads its backend with pg_backend_pid() (an identity read, which pins A's handle
     * until it closes) and does {@code a}; borrower B then gets a handle of {@code ds}, asserts it
     * is on A's backend, and does {@code b}. Unlike {@link #pgAfterA}, the backend is read on A's
     * own handle: B's look is the point, not whether A's handle lets go.
     */
    static void pgAThenB(LoomPoolDataSource ds, Use a, Use b) throws SQLException {
        aThenB(ds, PlainQueries::pgPid, null, a, b);
    }

    /** {@link #pgAThenB} on MariaDB, with CONNECTION_ID(). */
    static void mariaAThenB(LoomPoolDataSource ds, Use a, Use b) throws SQLException {
        aThenB(ds, PlainQueries::myId, null, a, b);
    }

    /** {@link #pgAThenB}, but B must be on a new backend: the pool closed A's, for {@code why}. */
    static void pgAThenNewB(LoomPoolDataSource ds, String why, Use a, Use b) throws SQLException {
        aThenB(ds, PlainQueries::pgPid, why, a, b);
    }

    /** {@link #pgAThenNewB} on MariaDB. */
    static void mariaAThenNewB(LoomPoolDataSource ds, String why, Use a, Use b) throws SQLException {
        aThenB(ds, PlainQueries::myId, why, a, b);
    }

    /** B on A's backend, or on a new one for {@code whyNew} unless that is null. */
    private static void aThenB(LoomPoolDataSource ds, Backend backend, String whyNew, Use a, Use b)
            throws SQLException {
        long aBackend;
        try (Connection c = ds.getConnection()) {
            aBackend = backend.of(c);
            a.on(c);
        }
        try (Connection c = ds.getConnection()) {
            if (whyNew == null) {
                assertThat(backend.of(c)).as("B is on A's backend").isEqualTo(aBackend);
            } else {
                assertThat(backend.of(c)).as(whyNew).isNotEqualTo(aBackend);
            }
            b.on(c);
        }
    }


    /**
     * The reset test. A fresh session is the reference: {@code probe} on a plain driver connection
     * of {@code db}'s URL with {@code urlSuffix}, after {@code initSql}. On {@code ds}, a pool of one
     * of the same URL and init SQL, borrower A starts as a fresh session, changes it by
     * {@code change} and closes; B, on A's backend, must read {@code probe} as a fresh session.
     *
     * @return what a fresh session reads
     */
    static String resetLeavesAFreshSession(LoomPoolDataSource ds, TestDatabase db, String urlSuffix, String initSql,
            String probe, Use change) throws SQLException {
        String fresh;
        try (Connection plain = DriverManager.getConnection(db.url() + urlSuffix)) {
            run(plain, initSql);
            fresh = str(plain, probe);
        }
        aThenB(ds, db == TestDatabase.POSTGRES ? PlainQueries::pgPid : PlainQueries::myId, null, a -> {
            assertThat(str(a, probe)).isEqualTo(fresh);
            change.on(a);
        }, b -> assertThat(str(b, probe)).isEqualTo(fresh));
        return fresh;
    }

    // ---- a borrower's statement, seen from the server ------------------------------------------

    /** Waits up to 15 s for {@code b} to hold, looking every 10 ms; {@code what} names it in the failure. */
    static void eventually(String what, BooleanSupplier b) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!b.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out: " + what);
            }
            Thread.sleep(10);
        }
    }

    /** Whether backend {@code id} of {@code db} runs a pg_sleep or SLEEP now, as the server's own list says. */
    static boolean sleeping(TestDatabase db, long id) {
        String sql = db == TestDatabase.POSTGRES
                ? "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep%' AND pid = " + id
                : "SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = " + id + " AND INFO LIKE '%SLEEP(%'";
        try (Connection c = db.admin()) {
            return num(c, sql) == 1;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits up to 5 s until a session of {@code db} other than the looking one runs a statement containing {@code text}. */
    static void awaitRunning(TestDatabase db, String text) throws SQLException, InterruptedException {
        String sql = db == TestDatabase.POSTGRES
                ? "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%"
                        + text.replace("(", "_").replace(")", "_") + "%' AND pid <> pg_backend_pid()"
                : "SELECT count(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%" + text
                        + "%' AND ID <> CONNECTION_ID()";
        try (Connection admin = db.admin()) {
            for (int i = 0; i < 500; i++) {
                if (num(admin, sql) > 0) {
                    return;
                }
                Thread.sleep(10);
            }
        }
        throw new AssertionError("the query never ran: " + text);
    }

    // ---- per-statement values: borrowers side by side -------------------------------------------


    /**
     * B, on its own handle, runs {@code bLongQuery} (whose text contains {@code marker}); once it
     * runs, A runs {@code aStopsItsOwn}, meant to end A's own query (a kill or a cancel). B's query
     * must run to its end and answer {@code bAnswers}; A's handle keeps the explicit pin its
     * identity read took.
     */
    static void bRunsOnWhileAStopsItsOwnQuery(TestDatabase db, Connection a, Connection b, String bLongQuery,
            String marker, long bAnswers, String aStopsItsOwn) throws Exception {
        CompletableFuture<Long> slept = CompletableFuture.supplyAsync(() -> {
            try {
                return num(b, bLongQuery);
            } catch (SQLException e) {
                return -1L; // interrupted
            }
        }, runnable -> new Thread(runnable).start());
        awaitRunning(db, marker);
        try {
            run(a, aStopsItsOwn);
        } catch (SQLException stoppedItself) {
            // on its own backend the kill or cancel may interrupt the stopping statement: that is A's business
        }
        assertThat(slept.get(10, TimeUnit.SECONDS)).as("B's query ran to its end").isEqualTo(bAnswers);
        assertThat(a.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.EXPLICIT);
    }

    /** One round of a borrower: on {@code c}, round {@code round} of thread {@code thread}; what is wrong goes to {@code wrong}. */
    @FunctionalInterface
    interface Round {
        void on(Connection c, int thread, int round, Queue<String> wrong) throws SQLException;
    }

    /** How many borrowers {@link #borrowersAtOnce} starts, and how many rounds each runs. */
    static final int BORROWERS = 6;
    static final int ROUNDS = 15;

    /**
     * {@link #BORROWERS} borrowers start together on their own threads, each taking a handle of
     * {@code ds} for every one of {@link #ROUNDS} rounds; a borrower that throws stops there.
     *
     * @return what went wrong, in any borrower
     */
    static Queue<String> borrowersAtOnce(LoomPoolDataSource ds, Round round) throws Exception {
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int t = 0; t < BORROWERS; t++) {
            int thread = t;
            all.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                    for (int r = 0; r < ROUNDS; r++) {
                        try (Connection c = ds.getConnection()) {
                            round.on(c, thread, r, wrong);
                        }
                    }
                } catch (Exception e) {
                    wrong.add(e.toString());
                }
            }, runnable -> new Thread(runnable).start()));
        }
        start.countDown();
        CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        return wrong;
    }
}
