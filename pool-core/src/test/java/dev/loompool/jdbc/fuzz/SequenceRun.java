package dev.loompool.jdbc.fuzz;

import dev.loompool.jdbc.LoomConnection;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.internal.sql.SessionFingerprint;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One sequence, run twice: by borrower A on a fresh pool of one connection, with borrower B
 * looking at the session whenever A's handle holds no connection and after A closed; then on a
 * plain connection of the same URL. What it finds, in this order: B's session not a fresh one's,
 * A's handle bound for no reason, a step's outcome not the driver's (the pool's documented
 * refusals apart, which are counted), and what each run committed.
 */
final class SequenceRun {

    enum Category {
        /** The pool's fresh session (B's first look) differs from a plain connection's with the same defaults. */
        FRESH,
        /** B met something of A's: the session or the driver's state differs from a fresh session's. */
        B_SESSION,
        /** A's handle is bound with no pin reason between two steps, or B could not borrow while A held nothing. */
        INVARIANT,
        /** A step did not do through the pool what it does on the plain driver. */
        OUTCOME,
        /** The pool's run committed other rows than the plain run. */
        COMMITTED
    }

    /** What went wrong first, where ({@code step} -1: after A closed), and what differed. */
    record Failure(Category category, int step, List<String> details) {
    }

    record Result(Failure failure, List<String> refusals) {
    }

    /** The tables of one target's run: the pool's and the plain driver's. */
    record Tables(String pool, String plain) {
    }

    private final SeqTarget target;
    private final Tables tables;
    private final boolean typed;
    /** A fresh pool session's look, per pool defaults: the reference for B. */
    private final Map<PoolDefaults, Set<String>> fresh = new ConcurrentHashMap<>();

    SequenceRun(SeqTarget target, Tables tables, boolean typed) {
        this.target = target;
        this.tables = tables;
        this.typed = typed;
    }

    Result run(Sequence seq) throws SQLException {
        clear();
        List<String> refusals = new ArrayList<>();
        Set<String> reference = fresh(seq.defaults());
        Failure failure = null;
        List<Outcome> pool = new ArrayList<>();
        try (LoomPoolDataSource ds = seq.defaults().pool(target, "wt38d-fuzz")) {
            Connection a = ds.getConnection();
            LoomConnection la = a.unwrap(LoomConnection.class);
            StepRunner runner = new StepRunner(target, tables.pool(), la);
            for (int i = 0; i < seq.steps().size(); i++) {
                pool.add(runner.run(a, seq.steps().get(i)));
                if (failure != null) {
                    continue;
                }
                boolean bound;
                try {
                    bound = la.isBound() && !la.pinReasons().isEmpty();
                    if (la.isBound() && !bound) {
                        failure = new Failure(Category.INVARIANT, i, List.of("A's handle is bound with no pin reason"));
                        continue;
                    }
                } catch (RuntimeException e) {
                    // pinReasons() may ask the connection (the wire state after an error): what it
                    // throws reaches whoever asked, a metrics scrape or a log line
                    failure = new Failure(Category.INVARIANT, i, List.of("A's pinReasons() threw " + e));
                    continue;
                }
                if (!bound) {
                    failure = compare(reference, BorrowerB.borrowAndLook(ds, target, tables.pool(), typed), i);
                }
            }
            pool.add(close(a));
            if (failure == null) {
                failure = compare(reference, BorrowerB.borrowAndLook(ds, target, tables.pool(), typed), -1);
            }
            if (failure == null && ds.getOpenHandles() != 0) {
                failure = new Failure(Category.INVARIANT, -1, List.of("open handles after both closed: " + ds.getOpenHandles()));
            }
        }
        List<Outcome> plain = plainRun(seq);
        boolean diverged = false; // by design: what follows a documented refusal is not compared
        for (int i = 0; i <= seq.steps().size() && failure == null && !diverged; i++) { // the last: close
            Outcome p = pool.get(i);
            Outcome q = plain.get(i);
            String where = i < seq.steps().size() ? seq.steps().get(i).kind().toString() : "close";
            if (p.refusal() != null) {
                // the refusal happens before the server: the plain run's statement ran, and may
                // have left a value, a row or an aborted transaction the pool's run has not (even
                // when both answered 55000, the server's error aborted the plain transaction)
                refusals.add(where + ": " + p.refusal());
                diverged = true;
            } else if (p.agrees(q) || i == seq.steps().size() && p.result().equals("closed")) {
                continue; // a close the pool did without an error where the driver's threw (an XA branch still active) is no harm
            } else if (q.result().startsWith("error 08") && !p.result().startsWith("error 08")
                    || q.result().startsWith("threw ") && !p.result().startsWith("threw ")) {
                // the reference lost its connection (a driver hang cut by socketTimeout) or its way
                // in the protocol (MariaDB Connector/J's ArrayIndexOutOfBoundsException): nothing to compare with
                refusals.add(where + ": the plain driver failed (" + q + "), not compared further");
                diverged = true;
            } else {
                failure = new Failure(Category.OUTCOME, i < seq.steps().size() ? i : -1, List.of("pool:  " + p, "plain: " + q));
            }
        }
        if (failure == null && !diverged) {
            String p = rows(tables.pool());
            String q = rows(tables.plain());
            if (!p.equals(q)) {
                failure = new Failure(Category.COMMITTED, -1, List.of("pool:  " + p, "plain: " + q));
            }
        }
        return new Result(failure, refusals);
    }

    private static Failure compare(Set<String> reference, Set<String> seen, int step) {
        List<String> diff = SessionFingerprint.diff(reference, seen);
        return diff.isEmpty() ? null : new Failure(Category.B_SESSION, step, diff);
    }

    /**
     * The same steps on a plain connection, then its close; its session advisory locks go before
     * it closes, so that they cannot outlive it into the next run.
     */
    private List<Outcome> plainRun(Sequence seq) throws SQLException {
        List<Outcome> out = new ArrayList<>();
        Connection c = seq.defaults().plain(target);
        StepRunner runner = new StepRunner(target, tables.plain(), null);
        for (Step s : seq.steps()) {
            out.add(runner.run(c, s));
        }
        if (!c.isClosed()) {
            try (Statement s = c.createStatement()) {
                s.execute("ROLLBACK"); // what the close does anyway; the unlock below must not commit
                s.execute(target.postgres() ? "SELECT pg_advisory_unlock_all()" : "SELECT RELEASE_ALL_LOCKS()");
            } catch (SQLException | RuntimeException e) {
                // a session the steps ended (its locks went with it), or a driver that lost its way
                // in the protocol (MariaDB Connector/J's IllegalArgumentException): it is closed below
            }
        }
        out.add(close(c));
        return out;
    }

    private static Outcome close(Connection c) {
        try {
            c.close();
            return Outcome.ok("closed");
        } catch (Throwable t) {
            return Outcome.of(t);
        }
    }

    /**
     * The reference for B: a fresh pool's first session, read before anyone used it; checked once
     * against a plain connection with the same defaults (a FRESH failure when they differ).
     */
    Set<String> fresh(PoolDefaults d) throws SQLException {
        Set<String> known = fresh.get(d);
        if (known != null) {
            return known;
        }
        Set<String> seen;
        try (LoomPoolDataSource ds = d.pool(target, "wt38d-fuzz-fresh")) {
            seen = BorrowerB.borrowAndLook(ds, target, tables.pool(), typed);
        }
        fresh.put(d, seen);
        return seen;
    }

    /** What a plain connection with these defaults looks like, beside {@link #fresh}. */
    Failure freshAgainstPlain(PoolDefaults d) throws SQLException {
        Set<String> plain;
        try (Connection c = d.plain(target)) {
            plain = BorrowerB.look(c, target, tables.pool(), typed);
        }
        List<String> diff = SessionFingerprint.diff(plain, fresh(d));
        return diff.isEmpty() ? null : new Failure(Category.FRESH, -1, diff);
    }

    /** Every row the table holds, as another session sees it. */
    private String rows(String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = target.database.admin(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, v FROM " + table + " ORDER BY id, v")) {
            while (rs.next()) {
                rows.add("(" + rs.getString(1) + "|" + rs.getString(2) + ")");
            }
        }
        return rows.toString();
    }

    private void clear() throws SQLException {
        try (Connection c = target.database.admin(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM " + tables.pool());
            s.execute("DELETE FROM " + tables.plain());
        }
    }
}
