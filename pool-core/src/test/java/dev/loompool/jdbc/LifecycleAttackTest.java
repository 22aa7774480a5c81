package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lifecycle attacks on the real servers (DESIGN.md §3 "Close", §4 "Coroutine end", "Broken
 * connections", the error table): the pool's close racing borrowers, isValid(t) whatever the pool
 * does, the owner-exit reclaim racing a live thread, and a backend killed under a statement. Each
 * is compared with what the plain driver does on the same URL.
 */
class LifecycleAttackTest extends BorrowerScenarios {

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeExtras() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private static String sleep(TestDatabase db, double seconds, String marker) {
        return (db == TestDatabase.POSTGRES ? "SELECT pg_sleep(" : "SELECT SLEEP(") + seconds + ") AS s_" + marker;
    }

    private static long backend(TestDatabase db, Connection c) throws SQLException {
        return db == TestDatabase.POSTGRES ? pgPidUnpinned(c) : myIdUnpinned(c);
    }

    private static void kill(TestDatabase db, long id) throws SQLException {
        try (Connection admin = db.admin()) {
            run(admin, db == TestDatabase.POSTGRES ? "SELECT pg_terminate_backend(" + id + ")" : "KILL " + id);
        }
    }

    private static boolean sessionGone(TestDatabase db, long id) {
        String sql = db == TestDatabase.POSTGRES ? "SELECT count(*) FROM pg_stat_activity WHERE pid = " + id
                : "SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = " + id;
        try (Connection c = db.admin()) {
            return num(c, sql) == 0;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Kills backend {@code id} once a statement containing {@code marker} runs. */
    private static CompletableFuture<Void> killWhenRunning(TestDatabase db, long id, String marker) {
        return CompletableFuture.runAsync(() -> {
            try {
                awaitRunning(db, marker);
                kill(db, id);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, r -> new Thread(r, "killer").start());
    }

    private String tableRows(TestDatabase db) throws SQLException {
        return db == TestDatabase.POSTGRES ? String.valueOf(pgIds()) : mariaValues();
    }

    private void table(TestDatabase db) throws SQLException {
        if (db == TestDatabase.POSTGRES) {
            pgTable();
        } else {
            mariaTable();
        }
    }

    private LoomPoolDataSource ds(TestDatabase db, int max) {
        LoomPoolDataSource ds = pool(db, max, db == TestDatabase.MARIADB ? "&allowMultiQueries=true" : null, null);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }

    interface Body {
        void run() throws Exception;
    }

    private static Thread start(String name, ThreadFactory factory, Body body, AtomicReference<Throwable> failure) {
        Thread t = factory.newThread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.setName(name);
        t.start();
        return t;
    }

    private static ThreadFactory platform() {
        return Thread::new;
    }

    /** {@code Thread.ofVirtual().factory()} by reflection (these sources compile for Java 17); null on JDK 17. */
    private static ThreadFactory virtualOrNull() {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    // =================================================================================================
    // 1. close() of the pool racing borrowers
    // =================================================================================================

    /** Where borrower B waits for the pool's one connection when the pool closes. */
    enum WaitIn {
        FIRST_BIND, GET_CONNECTION_IN_CLOSE_MODE, SET_AUTOCOMMIT_FALSE, FRAMEWORK_TRANSACTION, VIRTUAL_THREAD_FIRST_BIND
    }

    static Stream<Arguments> waits() {
        List<Arguments> all = new ArrayList<>();
        for (TestDatabase db : TestDatabase.values()) {
            for (WaitIn w : WaitIn.values()) {
                all.add(Arguments.of(db, w));
            }
        }
        return all.stream();
    }

    /**
     * Issue 37's scenario with the defaults: validationTimeout 5 s, A's statement of 2 s. B waits in
     * {@code where}; the pool closes; B must be told 08003 at once, not when A's statement ends.
     * Afterwards nothing of A stays open on the server.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("waits")
    void closeWakesAWaiterAtOnceWhileAnotherBorrowersTwoSecondStatementRuns(TestDatabase db, WaitIn where)
            throws Exception {
        ThreadFactory factory = platform();
        if (where == WaitIn.VIRTUAL_THREAD_FIRST_BIND) {
            factory = virtualOrNull();
            Assumptions.assumeTrue(factory != null, "virtual threads need JDK 21+");
        }
        LoomPoolDataSource ds = ds(db, 1); // validationTimeout left at its default of 5 s
        if (where == WaitIn.GET_CONNECTION_IN_CLOSE_MODE) {
            ds.setReleaseMode(ReleaseMode.CLOSE);
        }
        Connection a = ds.getConnection();
        long aId = backend(db, a);
        String marker = "a" + tag;
        AtomicBoolean aDone = new AtomicBoolean();
        Thread aThread = start("A", platform(), () -> {
            try {
                run(a, sleep(db, 2, marker));
            } finally {
                aDone.set(true);
            }
        }, new AtomicReference<>());
        awaitRunning(db, marker);
        AtomicLong toldAt = new AtomicLong();
        AtomicBoolean aDoneWhenTold = new AtomicBoolean(true);
        AtomicReference<Throwable> bGot = new AtomicReference<>();
        Thread bThread = start("B", factory, () -> {
            Connection b = null;
            try {
                b = ds.getConnection();
                switch (where) {
                    case SET_AUTOCOMMIT_FALSE -> b.setAutoCommit(false);
                    case FRAMEWORK_TRANSACTION -> {
                        b.unwrap(LoomConnection.class).beginFrameworkTransaction();
                        b.setAutoCommit(false);
                        run(b, "SELECT 1");
                    }
                    default -> run(b, "SELECT 1");
                }
            } catch (Throwable e) {
                toldAt.set(System.nanoTime());
                aDoneWhenTold.set(aDone.get());
                bGot.set(e);
            } finally {
                if (b != null) {
                    b.close();
                }
            }
        }, new AtomicReference<>());
        eventually("B waits", () -> ds.getPool().stats().pending() == 1);
        long closeAt = System.nanoTime();
        Thread closer = start("closer", platform(), ds::close, new AtomicReference<>());
        bThread.join(30_000);
        assertThat(bGot.get()).as("B's failure").isInstanceOf(SQLException.class);
        assertThat(((SQLException) bGot.get()).getSQLState()).isEqualTo("08003");
        long millis = TimeUnit.NANOSECONDS.toMillis(toldAt.get() - closeAt);
        assertThat(aDoneWhenTold.get()).as("B told only when A's statement ended (%d ms after close)", millis).isFalse();
        assertThat(millis).as("B told %d ms after close", millis).isLessThan(1_000);
        aThread.join(30_000);
        closer.join(30_000);
        eventually("A's session ended on the server", () -> sessionGone(db, aId));
        a.close();
    }

    /**
     * The pool with a read replica (the same server, as a replica): A's read-only statement runs on
     * the replica's pool, C holds the primary's one connection, B waits for the primary. close()
     * must wake B at once; the replicas' close gives A's statement its grace first.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void closeWakesAPrimaryWaiterAtOnceWhileAReplicaStatementRuns(TestDatabase db) throws Exception {
        // FINDING: JdbcPool.close() closes the replicas first (their abortBound waits the grace for
        // A's running statement) before the primary's pool.close() wakes its waiters.
        LoomPoolDataSource ds = ds(db, 1); // validationTimeout left at its default of 5 s
        ds.setReplicas(List.of(ds.getJdbcUrl()));
        Connection a = ds.getConnection();
        a.setReadOnly(true); // routed to the replica
        String marker = "r" + tag;
        AtomicBoolean aDone = new AtomicBoolean();
        Thread aThread = start("A", platform(), () -> {
            try {
                run(a, sleep(db, 2, marker)); // issue 37: a 2 s statement
            } finally {
                aDone.set(true);
            }
        }, new AtomicReference<>());
        awaitRunning(db, marker);
        assertThat(ds.getReplicaPools().get(0).stats().inUse()).as("A runs on the replica").isEqualTo(1);
        Connection c = ds.getConnection();
        c.setAutoCommit(false); // holds the primary's one connection
        AtomicLong toldAt = new AtomicLong();
        AtomicBoolean aDoneWhenTold = new AtomicBoolean(true);
        AtomicReference<Throwable> bGot = new AtomicReference<>();
        Thread bThread = start("B", platform(), () -> {
            try (Connection b = ds.getConnection()) {
                try {
                    run(b, "SELECT 1");
                } catch (SQLException e) {
                    toldAt.set(System.nanoTime());
                    aDoneWhenTold.set(aDone.get());
                    bGot.set(e);
                }
            }
        }, new AtomicReference<>());
        eventually("B waits on the primary", () -> ds.getPool().stats().pending() == 1);
        long closeAt = System.nanoTime();
        Thread closer = start("closer", platform(), ds::close, new AtomicReference<>());
        bThread.join(30_000);
        assertThat(bGot.get()).isInstanceOf(SQLException.class);
        assertThat(((SQLException) bGot.get()).getSQLState()).isEqualTo("08003");
        long millis = TimeUnit.NANOSECONDS.toMillis(toldAt.get() - closeAt);
        assertThat(aDoneWhenTold.get()).as("B told only when A's replica statement ended (%d ms after close)", millis)
                .isFalse();
        assertThat(millis).as("B told %d ms after close", millis).isLessThan(1_000);
        aThread.join(30_000);
        closer.join(30_000);
        a.close();
        c.close();
    }

    /**
     * A runs a statement in a transaction longer than the close's grace (validationTimeout 1 s):
     * after close nothing of A stays open on the server, before A's statement would have ended, and
     * A's work is rolled back; A's commit() does not report success.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void closeAbortsAStatementPastItsGraceAndRollsBackTheTransaction(TestDatabase db) throws Exception {
        // FINDING (minor, PostgreSQL): the abort closes the socket only; the backend runs A's statement
        // to its end (pg_sleep does not notice the client left), so A's session stays on the server
        // for the rest of the statement. The plain driver's abort() does the same (checked below);
        // a cancel before the abort would end it.
        table(db);
        long plainGoneMillis;
        try (Connection plain = DriverManager.getConnection(db.url())) {
            long plainId = backend(db, plain);
            String plainMarker = "q" + tag;
            Thread runner = start("plain", platform(), () -> run(plain, sleep(db, 4, plainMarker)), new AtomicReference<>());
            awaitRunning(db, plainMarker);
            long abortAt = System.nanoTime();
            plain.abort(Runnable::run);
            eventually("the plain session ended", () -> sessionGone(db, plainId));
            plainGoneMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - abortAt);
            runner.join(30_000);
        }
        LoomPoolDataSource ds = ds(db, 2);
        ds.setValidationTimeout(Duration.ofSeconds(1));
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, insertOf(db, 1));
        long aId = backend(db, a);
        String marker = "g" + tag;
        AtomicReference<Throwable> aGot = new AtomicReference<>();
        Thread aThread = start("A", platform(), () -> run(a, sleep(db, 8, marker)), aGot);
        awaitRunning(db, marker);
        long closeAt = System.nanoTime();
        ds.close();
        eventually("A's session ended on the server", () -> sessionGone(db, aId));
        long gone = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closeAt);
        aThread.join(30_000);
        assertThat(aGot.get()).as("A's statement was stopped").isInstanceOf(SQLException.class);
        assertThatThrownBy(a::commit).isInstanceOf(SQLException.class);
        assertThat(tableRows(db)).isIn("null", "none");
        a.close();
        assertThat(gone).as("A's 8 s statement: session gone %d ms after close (plain driver's abort() of a 4 s "
                + "statement: %d ms)", gone, plainGoneMillis).isLessThan(6_000);
    }

    // =================================================================================================
    // 2. isValid(t)
    // =================================================================================================

    /**
     * The network to the database freezes (a partition). A's handle is unbound; its pool's one
     * idle connection has been idle past 500 ms. isValid(1) must answer within about 1 s, and not
     * say the database is fine.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void isValidOfAnUnboundHandleAnswersWithinItsTimeoutWhenTheNetworkFreezes(TestDatabase db) throws Exception {
        // FINDING (if it fails): the hand-out validation of the idle connection runs with
        // min(validationTimeout, acquireTimeout), not the caller's t.
        FreezingProxy proxy = proxyFor(db);
        LoomPoolDataSource ds = ds(db, 1);
        ds.setJdbcUrl(db.url().replaceFirst("//[^/]+/", "//127.0.0.1:" + proxy.port() + "/")
                + (db == TestDatabase.MARIADB ? "&allowMultiQueries=true" : ""));
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        Connection a = ds.getConnection();
        assertThat(num(a, "SELECT 1")).isEqualTo(1);
        assertThat(a.unwrap(LoomConnection.class).isBound()).isFalse();
        Thread.sleep(800); // idle long enough to be validated when handed out
        proxy.freeze();
        long start = System.nanoTime();
        boolean valid = a.isValid(1);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        proxy.thaw();
        assertThat(took).as("isValid(1) took %d ms (answered %s)", took, valid).isLessThan(2_500);
        assertThat(valid).as("isValid(1) while the database cannot be reached").isFalse();
        a.close();
    }

    /**
     * A database that accepts TCP and never answers (a black hole), before any connection was
     * made: isValid(1) answers within ~1 s, and must not call the handle valid.
     */
    @Test
    void isValidAgainstABlackHoleAnswersFalseWithinItsTimeout() throws Exception {
        // FINDING (if it fails): unboundValid takes a connect that did not complete in time for a
        // busy pool, and serving() counts the connect's own slot as "a connection made".
        ServerSocket hole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        toClose.add(hole);
        toClose.add(() -> accepted.forEach(s -> {
            try {
                s.close();
            } catch (Exception ignored) {
                // closing
            }
        }));
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    accepted.add(hole.accept());
                }
            } catch (Exception e) {
                // closed
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        LoomPoolDataSource ds = ds(TestDatabase.POSTGRES, 1);
        ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + hole.getLocalPort() + "/test?user=postgres");
        ds.setAcquireTimeout(Duration.ofSeconds(3));
        ds.setInitializationFailTimeout(Duration.ofSeconds(-1));
        Connection a;
        try {
            a = ds.getConnection();
        } catch (SQLException e) {
            Assumptions.abort("the pool does not start without a database: " + e);
            return;
        }
        long start = System.nanoTime();
        boolean valid = a.isValid(1);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(took).as("isValid(1) took %d ms", took).isLessThan(2_500);
        assertThat(valid).as("isValid(1) of a pool that never reached its database").isFalse();
        a.close();
    }

    /** A port nobody listens on: isValid(t) answers false at once, for t = 1 and t = 0. */
    @Test
    void isValidWithTheDatabaseUnreachableAnswersFalseAtOnce() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        LoomPoolDataSource ds = ds(TestDatabase.POSTGRES, 1);
        ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres");
        ds.setInitializationFailTimeout(Duration.ofSeconds(-1));
        Connection a;
        try {
            a = ds.getConnection();
        } catch (SQLException e) {
            Assumptions.abort("the pool does not start without a database: " + e);
            return;
        }
        for (int t : new int[] {1, 0}) {
            long start = System.nanoTime();
            boolean valid = a.isValid(t);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(valid).as("isValid(%d)", t).isFalse();
            assertThat(took).as("isValid(%d) took %d ms", t, took).isLessThan(2_500);
        }
        a.close();
    }

    /** The circuit set INACTIVE by hand: isValid answers at once, and a bound handle's connection still answers. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void isValidWithTheCircuitInactiveAnswersAtOnce(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = ds(db, 2);
        try (Connection bound = ds.getConnection(); Connection unbound = ds.getConnection()) {
            bound.setAutoCommit(false);
            run(bound, "SELECT 1");
            ds.getPool().deactivate();
            for (int t : new int[] {1, 0}) {
                long start = System.nanoTime();
                unbound.isValid(t);
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(took).as("unbound isValid(%d) took %d ms", t, took).isLessThan(1_500);
                assertThat(unbound.unwrap(LoomConnection.class).isBound()).isFalse();
            }
            assertThat(bound.isValid(1)).as("its own connection answers").isTrue();
            bound.rollback();
            ds.getPool().activate();
        }
    }

    /**
     * A bound handle in a transaction whose backend was killed: isValid(1) says false within its
     * bound, as the plain driver does, and the handle refuses to commit (the work is lost).
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void isValidOfABoundHandleWhoseBackendWasKilledSaysFalseAndTheTransactionStaysLost(TestDatabase db)
            throws Exception {
        table(db);
        LoomPoolDataSource ds = ds(db, 2);
        try (Connection plain = DriverManager.getConnection(db.url())) {
            plain.setAutoCommit(false);
            long plainId = backend(db, plain);
            kill(db, plainId);
            eventually("the plain session gone", () -> sessionGone(db, plainId));
            assertThat(plain.isValid(1)).as("plain driver").isFalse();
        }
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            run(a, insertOf(db, 1));
            long id = backend(db, a);
            kill(db, id);
            eventually("A's session gone", () -> sessionGone(db, id));
            long start = System.nanoTime();
            boolean valid = a.isValid(1);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(valid).isFalse();
            assertThat(took).isLessThan(2_500);
            assertThatThrownBy(() -> run(a, insertOf(db, 2))).as("work lost: the handle refuses to go on")
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(a::commit).isInstanceOf(SQLException.class);
            a.rollback();
            assertThat(tableRows(db)).isIn("null", "none");
        }
    }

    // =================================================================================================
    // 3. owner-exit reclaim racing a live thread
    // =================================================================================================

    /**
     * reclaimOnOwnerExit. T1 begins a transaction (insert 1) and hands a statement to T2, which runs
     * a 4 s insert; while it runs T1 makes one more call on the handle (getAutoCommit) and ends. T2
     * is alive and its statement runs all along: the reclaimer must not take the connection. With
     * the plain driver T2's insert and commit succeed: rows 1,2.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void ownerExitReclaimNeverTakesAConnectionWhoseStatementRunsOnALiveThread(TestDatabase db) throws Exception {
        // FINDING: HandleLife.claimForReclaim checks only the owner (the thread that touched the handle
        // last), not whether a statement of the handle runs now (runs), so the reclaimer rolls back
        // and takes the connection from under T2's running statement.
        table(db);
        LoomPoolDataSource ds = ds(db, 2);
        ds.setReclaimOnOwnerExit(true);
        Connection a = ds.getConnection();
        String marker = "w" + tag;
        String longInsert = db == TestDatabase.POSTGRES
                ? "INSERT INTO " + table + " SELECT 2 FROM pg_sleep(4) AS s_" + marker
                : "INSERT INTO " + table + " (v) SELECT 2 FROM (SELECT SLEEP(4) AS s_" + marker + ") x";
        AtomicReference<Throwable> t2Failure = new AtomicReference<>();
        AtomicReference<Thread> t2 = new AtomicReference<>();
        AtomicReference<Throwable> t1Failure = new AtomicReference<>();
        Thread t1 = start("T1", platform(), () -> {
            a.setAutoCommit(false);
            run(a, insertOf(db, 1));
            var st = a.createStatement();
            t2.set(start("T2", platform(), () -> {
                try {
                    st.executeUpdate(longInsert);
                } finally {
                    st.close();
                }
                a.commit();
                a.close();
            }, t2Failure));
            awaitRunning(db, marker);
            a.getAutoCommit(); // T1's last call on the handle; then T1 ends, T2 runs on
        }, t1Failure);
        t1.join(30_000);
        assertThat(t1Failure.get()).isNull();
        t2.get().join(30_000);
        assertThat(t2Failure.get()).as("T2's insert and commit, as on the plain driver").isNull();
        assertThat(tableRows(db)).isEqualTo("1,2");
        assertThat(ds.getReclaimedConnections()).as("reclaimed while T2's statement ran").isZero();
    }

    // =================================================================================================
    // 4. a backend killed under an open statement
    // =================================================================================================

    /** How the handle is in when its backend is killed. */
    enum Mode {
        JDBC_TRANSACTION, SQL_BEGIN, FRAMEWORK_TRANSACTION
    }

    static Stream<Arguments> modes() {
        List<Arguments> all = new ArrayList<>();
        for (TestDatabase db : TestDatabase.values()) {
            for (Mode m : Mode.values()) {
                all.add(Arguments.of(db, m));
            }
        }
        return all.stream();
    }

    /**
     * A's transaction (begun by JDBC, by SQL, or by a framework) inserts 1; its backend is killed
     * under a running statement. The handle must refuse to go on until rollback: insert 2 and
     * commit must not succeed on a fresh connection. B then sees nothing of A.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modes")
    void aBackendKilledUnderAStatementInATransactionRefusesUntilRollback(TestDatabase db, Mode mode) throws Exception {
        table(db);
        LoomPoolDataSource ds = ds(db, 1);
        String marker = "k" + tag;
        try (Connection a = ds.getConnection()) {
            switch (mode) {
                case JDBC_TRANSACTION -> a.setAutoCommit(false);
                case SQL_BEGIN -> run(a, db == TestDatabase.POSTGRES ? "BEGIN" : "START TRANSACTION");
                case FRAMEWORK_TRANSACTION -> {
                    a.unwrap(LoomConnection.class).beginFrameworkTransaction();
                    a.setAutoCommit(false);
                }
            }
            run(a, insertOf(db, 1));
            long id = backend(db, a);
            CompletableFuture<Void> killer = killWhenRunning(db, id, marker);
            assertThatThrownBy(() -> run(a, sleep(db, 6, marker))).isInstanceOf(SQLException.class);
            killer.get(20, TimeUnit.SECONDS);
            Throwable next = null;
            try {
                run(a, insertOf(db, 2));
            } catch (SQLException e) {
                next = e;
            }
            Throwable end = null;
            try {
                if (mode == Mode.SQL_BEGIN) {
                    run(a, "COMMIT");
                } else {
                    a.commit();
                }
            } catch (SQLException e) {
                end = e;
            }
            String committed = tableRows(db);
            assertThat(next).as("insert 2 after the kill went on silently; committed now: %s", committed).isNotNull();
            assertThat(end).as("the commit after the kill reported success; committed now: %s", committed)
                    .isNotNull();
            a.rollback();
            if (mode == Mode.FRAMEWORK_TRANSACTION) {
                a.setAutoCommit(true);
                a.unwrap(LoomConnection.class).endFrameworkTransaction();
            }
            assertThat(num(a, "SELECT 3")).as("after rollback the handle goes on").isEqualTo(3);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(b.getAutoCommit()).isTrue();
            assertThat(tableRows(db)).isIn("null", "none");
        }
    }

    /**
     * PostgreSQL, autocommit: A set its search_path by SQL (session state) and its backend is killed
     * under a running statement. The plain driver refuses every later statement (the session is
     * gone). On the pool, A's next statement must not run silently on a fresh session with another
     * search_path: its insert lands in another schema's table.
     */
    @Test
    void pgSessionStateLostWithAKilledBackendIsNotSilentlyContinuedOnAFreshConnection() throws Exception {
        // FINDING: error() drops every pin with the broken connection; lostWork() looks only at the
        // transaction, so a handle pinned by session state rebinds a fresh session for its next statement.
        String schema = "loompool_atk_s_" + tag;
        pgTable();
        pgAdmin("CREATE SCHEMA " + schema);
        pgCleanup.add(0, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        pgAdmin("CREATE TABLE " + schema + "." + table + " (id int PRIMARY KEY)");
        String marker = "p" + tag;
        // the plain driver
        try (Connection plain = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
            run(plain, "SET search_path TO " + schema);
            CompletableFuture<Void> killer = killWhenRunning(TestDatabase.POSTGRES, pgPid(plain), marker);
            assertThatThrownBy(() -> run(plain, sleep(TestDatabase.POSTGRES, 6, marker))).isInstanceOf(SQLException.class);
            killer.get(20, TimeUnit.SECONDS);
            assertThatThrownBy(() -> run(plain, "INSERT INTO " + table + " VALUES (7)")).as("plain driver")
                    .isInstanceOf(SQLException.class);
        }
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            run(a, "SET search_path TO " + schema);
            run(a, "INSERT INTO " + table + " VALUES (1)"); // into the schema's table
            long pid = pgPidUnpinned(a);
            CompletableFuture<Void> killer = killWhenRunning(TestDatabase.POSTGRES, pid, marker);
            assertThatThrownBy(() -> run(a, sleep(TestDatabase.POSTGRES, 6, marker))).isInstanceOf(SQLException.class);
            killer.get(20, TimeUnit.SECONDS);
            Throwable next = null;
            try {
                run(a, "INSERT INTO " + table + " VALUES (2)");
            } catch (SQLException e) {
                next = e;
            }
            assertThat(next).as("A's insert ran on a fresh session: public.%s now holds [%s]", table, pgIds())
                    .isNotNull();
        }
    }

    /**
     * The same with a session lock: A holds an advisory lock (PostgreSQL pg_advisory_lock, MariaDB
     * GET_LOCK), its backend is killed under a statement; the lock is gone with the session. A's
     * next statement must not run as if A still held it (the plain driver refuses it).
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aSessionLockLostWithAKilledBackendIsNotSilentlyContinued(TestDatabase db) throws Exception {
        // FINDING: as above, with the mutual exclusion the lock gave lost silently.
        boolean pg = db == TestDatabase.POSTGRES;
        long key = Math.abs(tag.hashCode()) + 1L;
        String lock = pg ? "SELECT pg_advisory_lock(" + key + ")" : "SELECT GET_LOCK('l" + tag + "', 5)";
        String tryLock = pg ? "SELECT CASE WHEN pg_try_advisory_lock(" + key + ") THEN 1 ELSE 0 END"
                : "SELECT GET_LOCK('l" + tag + "', 0)";
        String marker = "l" + tag;
        try (Connection plain = DriverManager.getConnection(db.url())) {
            run(plain, lock);
            CompletableFuture<Void> killer = killWhenRunning(db, backend(db, plain), marker);
            assertThatThrownBy(() -> run(plain, sleep(db, 6, marker))).isInstanceOf(SQLException.class);
            killer.get(20, TimeUnit.SECONDS);
            assertThatThrownBy(() -> run(plain, "SELECT 1")).as("plain driver").isInstanceOf(SQLException.class);
        }
        LoomPoolDataSource ds = ds(db, 2);
        try (Connection a = ds.getConnection()) {
            run(a, lock);
            long id = backend(db, a);
            CompletableFuture<Void> killer = killWhenRunning(db, id, marker);
            assertThatThrownBy(() -> run(a, sleep(db, 6, marker))).isInstanceOf(SQLException.class);
            killer.get(20, TimeUnit.SECONDS);
            eventually("A's session gone", () -> sessionGone(db, id));
            long otherGotTheLock;
            try (Connection other = db.admin()) {
                otherGotTheLock = num(other, tryLock);
            }
            Throwable next = null;
            try {
                run(a, "SELECT 1"); // A's critical section goes on
            } catch (SQLException e) {
                next = e;
            }
            assertThat(next).as("A went on after losing its lock (another session took it: %s)", otherGotTheLock == 1)
                    .isNotNull();
        }
    }

    /** Autocommit, no session state: the next statement runs, as the plain driver's next connection would. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aBackendKilledUnderAStatementInAutocommitLetsTheNextStatementRun(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = ds(db, 1);
        String marker = "c" + tag;
        try (Connection a = ds.getConnection()) {
            long id = backend(db, a);
            CompletableFuture<Void> killer = killWhenRunning(db, id, marker);
            assertThatThrownBy(() -> run(a, sleep(db, 6, marker))).isInstanceOf(SQLException.class);
            killer.get(20, TimeUnit.SECONDS);
            assertThat(num(a, "SELECT 4")).isEqualTo(4);
            assertThat(a.unwrap(LoomConnection.class).isBound()).isFalse();
        }
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT 5")).isEqualTo(5);
        }
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private FreezingProxy proxyFor(TestDatabase db) throws Exception {
        java.util.regex.Matcher hostPort = java.util.regex.Pattern.compile("//[^/:]+:(\\d+)/").matcher(db.url());
        assertThat(hostPort.find()).isTrue();
        FreezingProxy proxy = new FreezingProxy(Integer.parseInt(hostPort.group(1)));
        toClose.add(proxy);
        return proxy;
    }
}
