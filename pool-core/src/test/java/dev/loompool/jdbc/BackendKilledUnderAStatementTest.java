package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.ServerSessions.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A backend killed under a running statement on the real servers (DESIGN.md §4 "Broken
 * connections"): in a transaction, or with session state or a session lock, the handle refuses to
 * go on silently on a fresh connection, as the plain driver does; in autocommit without session
 * state, the next statement runs.
 */
class BackendKilledUnderAStatementTest extends OnRealDatabases {

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
}
