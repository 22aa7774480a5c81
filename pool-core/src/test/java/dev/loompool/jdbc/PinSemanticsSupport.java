package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.CircuitBreakerState;
import dev.loompool.ServiceUnavailableException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.assertj.core.api.SoftAssertions;

/**
 * The fixture of the pin-semantics suite (DESIGN.md §6, issue 10): over {@link PinFixture}'s table
 * and pools of one connection, borrower B on another thread, the plain-driver reference, and the
 * checks of "borrower A did this; what does B see, and what did A really commit?".
 *
 * <p>Rows are ints in {@code id int PRIMARY KEY}; SQL may name the table {@code {t}}. A inserts
 * rows 1, 2, 3…, B inserts {@link #B_ROW}. Nothing here depends on timing but the acquire
 * timeout, which B waits out when A pins the only connection.
 *
 * <p>A test holds one as a {@code @RegisterExtension} field, built with its database's dialect:
 * the table is made before each test and dropped, with the pools, after it.
 */
final class PinSemanticsSupport extends PinFixture {

    /** The row B inserts, in autocommit mode: it must be committed the moment B's insert returns. */
    static final int B_ROW = 100;

    /** The two ways B meets A's connection. */
    enum Shape {
        /** maxSize 1: A closes its handle, then B borrows the same physical connection. */
        A_CLOSED_THEN_B,
        /** maxSize 1: B borrows on another thread while A's handle is still open. */
        B_WHILE_A_OPEN
    }

    /** A query for a piece of session state, and the token that is in its answer only when A's state leaked. */
    record Probe(String sql, String leaked) {
    }

    /**
     * What B saw: its backend, its autoCommit, its answers, whether its autocommit row was
     * committed at once, and why its insert failed (null if it did not).
     */
    record BView(long backend, boolean autoCommit, Map<String, String> answers, boolean rowCommittedAtOnce,
            String insertFailure) {
    }

    @FunctionalInterface
    interface Work<T> {
        T run() throws Exception;
    }

    @FunctionalInterface
    interface Scenario {
        void run(Connection c) throws SQLException;
    }

    /** The arguments are {@link PinFixture}'s. */
    PinSemanticsSupport(TestDatabase database, String url, Supplier<String> backendIdSql, List<String> sessionProbes,
            String inTransactionProbe) {
        super(database, url, backendIdSql, sessionProbes, inTransactionProbe);
    }

    // ---- the plain driver's reference ----------------------------------------------------------------

    /** What the scenario commits on a plain driver connection, closed after it; the table is emptied again. */
    List<Integer> reference(Scenario scenario) throws SQLException {
        try (Connection c = DriverManager.getConnection(url())) {
            scenario.run(c);
        }
        List<Integer> ids = committed();
        try (Connection c = database().admin(); Statement st = c.createStatement()) {
            st.execute("DELETE FROM " + table);
        }
        return ids;
    }

    // ---- borrower B ----------------------------------------------------------------------------------

    /** Runs work on a new thread and waits for it; its exception is rethrown as is. */
    static <T> T onAnotherThread(Work<T> work) throws Exception {
        FutureTask<T> task = new FutureTask<>(work::run);
        Thread b = new Thread(task, "borrower-B");
        b.start();
        try {
            return task.get(60, TimeUnit.SECONDS); // a safety net against a hang, never reached when all is well
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            b.interrupt();
            throw new AssertionError("borrower B hung", e);
        }
    }

    /** A pins the only connection: B, on another thread, must wait out its acquire timeout. */
    void assertBMustWait(LoomPoolDataSource ds, String why) throws Exception {
        Object outcome = onAnotherThread(() -> {
            try (Connection b = ds.getConnection()) {
                return "B borrowed backend " + backend(b);
            } catch (SQLException e) {
                return e;
            }
        });
        assertThat(outcome)
                .as("B borrows while A's handle is open and %s: B must wait, A's connection is A's", why)
                .isInstanceOf(SQLTransientConnectionException.class);
        assertThat(((SQLException) outcome).getCause()).as("B timed out, not failed fast")
                .isNotInstanceOf(ServiceUnavailableException.class);
    }

    /**
     * B borrows on another thread, answers the probes, inserts {@link #B_ROW} in autocommit mode
     * and, before closing, asks an independent session whether that row is committed.
     */
    BView borrowB(LoomPoolDataSource ds, List<String> probes) throws Exception {
        return onAnotherThread(() -> {
            try (Connection b = ds.getConnection()) {
                long id = backend(b);
                boolean autoCommit = b.getAutoCommit();
                List<String> all = new ArrayList<>(probes);
                if (inTransactionProbe() != null) {
                    all.add(inTransactionProbe());
                }
                Map<String, String> seen = answers(b, all);
                String insertFailure = null;
                try {
                    run(b, insert(B_ROW));
                } catch (SQLException e) {
                    insertFailure = e.toString(); // e.g. A's search_path hides the table
                }
                return new BView(id, autoCommit, seen, committed().contains(B_ROW), insertFailure);
            } catch (SQLTransientConnectionException e) {
                throw new AssertionError("B could not borrow although nothing should pin A's connection: " + e, e);
            }
        });
    }

    /** B is on A's backend, in a clean autocommit session outside any transaction of A's. */
    void assertCleanAutocommitSession(BView b, long aBackend) {
        assertThat(b.backend()).as("B reuses A's physical connection (maxSize 1)").isEqualTo(aBackend);
        assertThat(b.autoCommit()).as("B's handle starts in autocommit mode").isTrue();
        if (inTransactionProbe() != null) {
            assertThat(b.answers().get(inTransactionProbe())).as("B's session is inside a transaction").isEqualTo("0");
        }
        assertThat(b.insertFailure()).as("B's autocommit insert failed").isNull();
        assertThat(b.rowCommittedAtOnce())
                .as("B's autocommit insert is committed at once (else B ran inside A's transaction)").isTrue();
    }

    /** A's handle keeps no physical connection: nothing pins it. */
    static void assertNotPinned(Connection a, String after) throws SQLException {
        assertThat(loom(a).pinReasons()).as("pin reasons after %s", after).isEmpty();
        assertThat(loom(a).isBound()).as("A's handle still bound after %s", after).isFalse();
    }

    // ---- six borrows in a row (issue 10, case 5) ----------------------------------------------------

    /** One borrow of {@link #sixRounds}: what A does with its handle, inserting {@code row}. */
    @FunctionalInterface
    interface Round {
        void run(Connection c, int row) throws SQLException;
    }

    /** Six borrows in a row on a one-connection pool; each round's backend id, or how it failed. */
    List<String> sixRounds(LoomPoolDataSource ds, Round round) {
        List<String> rounds = new ArrayList<>();
        for (int row = 1; row <= 6; row++) {
            try (Connection c = ds.getConnection()) {
                rounds.add("backend " + backend(c));
                round.run(c, row);
            } catch (SQLException e) {
                rounds.add("round " + row + " failed: " + e);
            }
        }
        return rounds;
    }

    void assertOneHealthyConnection(LoomPoolDataSource ds, List<String> rounds) {
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(rounds).as("each round's backend: one connection, reused, never destroyed")
                    .containsOnly(rounds.get(0));
            soft.assertThat(ds.getPool().state()).as("circuit breaker on a healthy database")
                    .isEqualTo(CircuitBreakerState.ACTIVE);
        });
    }

    // ---- scenarios the dialect tests share -----------------------------------------------------------

    /**
     * A runs SQL that leaves a transaction open on the server, which the SQL classifier may not
     * see. Whatever A commits must be what the plain driver commits; B must never run inside A's
     * transaction: it waits while A's handle is open, and after A closes it gets a clean session.
     */
    void transactionScenario(Shape shape, List<Integer> plainDriverCommits, String... aSql) throws Exception {
        List<Integer> expected = reference(c -> run(c, aSql));
        assertThat(expected).as("what the plain driver commits (test premise)").isEqualTo(plainDriverCommits);
        LoomPoolDataSource ds = dataSource(1);
        Connection a = ds.getConnection();
        long aBackend = backend(a);
        run(a, aSql);
        if (shape == Shape.B_WHILE_A_OPEN) {
            assertBMustWait(ds, "its transaction is open on the server");
            a.close();
            assertCommitted(ds, expected);
            return;
        }
        a.close();
        BView b = borrowB(ds, List.of());
        assertCleanAutocommitSession(b, aBackend);
        assertCommitted(ds, plus(expected, B_ROW));
    }

    /**
     * A runs SQL that leaves state on its session. A sees it; B must not: B waits while A's handle
     * is open, and after A closes B's session has none of it.
     */
    void sessionScenario(Shape shape, Probe probe, String... aSql) throws Exception {
        LoomPoolDataSource ds = dataSource(1);
        Connection a = ds.getConnection();
        long aBackend = backend(a);
        run(a, aSql);
        assertThat(answer(a, sql(probe.sql()))).as("A sees its own state (test premise)").contains(probe.leaked());
        if (shape == Shape.B_WHILE_A_OPEN) {
            assertBMustWait(ds, "its session carries state");
            a.close();
            assertCommitted(ds, List.of());
            return;
        }
        a.close();
        BView b = borrowB(ds, List.of(probe.sql()));
        assertThat(b.answers().get(probe.sql())).as("B sees A's session state").doesNotContain(probe.leaked());
        assertCleanAutocommitSession(b, aBackend);
        assertCommitted(ds, List.of(B_ROW));
    }

    /**
     * A reset must restore, not only wipe: after A dirties its session and closes, B (same
     * backend) answers every probe as the first borrower of the fresh connection did.
     *
     * @return the fresh connection's answers, for the caller's own checks
     */
    Map<String, String> resetScenario(String url, String initSql, String... aSql) throws Exception {
        LoomPoolDataSource ds = dataSource(1, url, initSql);
        Map<String, String> fresh;
        long freshBackend;
        try (Connection first = ds.getConnection()) {
            freshBackend = backend(first);
            fresh = answers(first, sessionProbes());
        }
        try (Connection a = ds.getConnection()) {
            assertThat(backend(a)).isEqualTo(freshBackend);
            run(a, aSql);
            assertThat(answers(a, sessionProbes())).as("A's SQL changed the session (test premise)").isNotEqualTo(fresh);
        }
        BView b = borrowB(ds, sessionProbes());
        Map<String, String> bSaw = new LinkedHashMap<>(b.answers());
        bSaw.keySet().retainAll(sessionProbes());
        assertThat(bSaw).as("B's session after the reset, against the fresh connection's").isEqualTo(fresh);
        assertCleanAutocommitSession(b, freshBackend);
        assertCommitted(ds, List.of(B_ROW));
        return fresh;
    }
}