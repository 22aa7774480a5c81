package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.sql.SqlEffect;
import dev.loompool.jdbc.PinReason;
import java.sql.SQLException;

/**
 * Values that belong to one statement on one physical connection (DESIGN.md §4, "Per-statement
 * values"): the rule that keeps them with their statement ({@link #before}, for {@link Pins#beforeSql});
 * which values a text reads or leaves, {@link SqlValues} says.
 *
 * <p>The rule. A statement that reads a value of the statement just before it
 * ({@link SqlEffect#READS_LAST}: {@code ROW_COUNT()}, {@code SHOW WARNINGS}) runs only if the
 * handle's last statement ran on the binding it holds now; {@code FOUND_ROWS()}
 * ({@link SqlEffect#READS_FOUND}) only if the last SELECT there was the handle's, on that binding; one that reads a value the session keeps
 * ({@link SqlEffect#READS_KEPT}: {@code lastval()}, {@code LAST_INSERT_ID()}) only if the handle
 * ran a statement that leaves such a value ({@link SqlEffect#LEAVES}) on that binding. Otherwise
 * the value there may be another borrower's, or none, and the statement is refused before it
 * reaches the driver. A statement that leaves a value keeps the connection bound
 * ({@link PinReason#STATEMENT_VALUE}) until the handle's next statement has run, so that
 * {@code INSERT; SELECT lastval()} works as on the plain driver; what another binding left there
 * is discarded before it ({@link #discardOthers}), so that a statement that turns out to set
 * nothing (an explicit id, no row) lets the read find nobody's value. An INSERT that hands its
 * generated key to its caller ({@link SqlEffect#HANDED}: {@code RETURNING}, the keys asked for,
 * or a table the catalog says generates none), which is what JDBC code, {@code KeyHolder} and
 * JPA's IDENTITY ids read, neither pins nor lets a later read of the session's value run.
 *
 * <p>The connection keeps the binding number of its last statement ({@link PhysicalConnection#lastStatement()}):
 * a binding is one handle's, so the number says whether the statement was this handle's, on this
 * binding; nothing is added to the handle, which is allocated on every getConnection.
 * There is no exception for the next binding of the same connection when nothing ran on it in
 * between: whether the pool handed the same connection back would depend on the load, and an
 * application must not pass its tests and fail in production.
 */
final class StatementValues {

    /** SQLState of a refusal: PostgreSQL's own for {@code currval} "not yet defined in this session". */
    static final String REFUSED = "55000";
    /**
     * In {@link PhysicalConnection#lastStatement()}: a statement on that binding left a value. Binding
     * numbers never reach the sign bit (a connection's id sits in the high half).
     */
    static final long KEPT = Long.MIN_VALUE;

    private StatementValues() {
    }

    // ---- the rule --------------------------------------------------------------------------------

    /**
     * Before SQL with value flags runs on binding {@code b} of {@code h}: refuses an unsafe read,
     * then pins for what it leaves (and for an identity read, until close).
     */
    static void before(HandleLife h, PhysicalConnection p, long b, SqlEffect e, String sql) throws SQLException {
        int v = e.values;
        long last = p.lastStatement();
        boolean sameBinding = (last & ~KEPT) == b;
        if ((v & SqlEffect.READS_LAST) != 0 && !sameBinding || (v & SqlEffect.READS_KEPT) != 0 && last != (b | KEPT)) {
            throw refused(h.pool, sql, (v & SqlEffect.READS_KEPT) != 0 && sameBinding);
        }
        if ((v & SqlEffect.READS_FOUND) != 0 && p.foundBy() != b) {
            throw refused(h.pool, sql, sameBinding); // the last SELECT there was not this handle's on this binding
        }
        if ((v & SqlEffect.SETS_FOUND) != 0) {
            p.noteFound(b);
        }
        if ((v & SqlEffect.HANDED) != 0) {
            // The caller has the key (or the catalog says the table generates none): nothing to keep the
            // connection for. Whether the statement set the session's value is not known (an explicit id,
            // no row, an error), so a later read of it is refused, even on this binding; a value it did set
            // is noted, for the discard before another binding's session SQL.
            ran(h, p, b);
            p.noteValueLeft(b);
        } else if ((v & SqlEffect.LEAVES) != 0) {
            // The handle may read what it leaves. A statement that leaves nothing after all (an explicit
            // id, no row, an error, another sequence's nextval) must not let it read another binding's:
            // that is discarded first, one round trip, only on a connection another binding left a value on.
            discardOthers(h, p, b);
            Pins.add(h, PinReason.STATEMENT_VALUE, sql);
            p.noteStatement(b | KEPT);
            p.noteValueLeft(b);
        } else {
            ran(h, p, b);
        }
        if ((v & SqlEffect.IDENTITY) != 0) {
            Pins.add(h, PinReason.EXPLICIT, sql); // a later KILL or pg_cancel_backend of that id must hit this handle's session
        }
    }

    /**
     * A statement that leaves no value runs on binding {@code b}: the value the last one left is
     * no longer kept for it (still readable on the same binding, as the session keeps it).
     */
    static void ran(HandleLife h, PhysicalConnection p, long b) {
        long last = p.lastStatement();
        if ((last & KEPT) != 0) {
            Pins.remove(h, PinReason.STATEMENT_VALUE);
            if (last != (b | KEPT)) {
                p.noteStatement(b);
            }
        } else {
            p.noteStatement(b);
        }
    }

    /**
     * Before SQL the pool cannot read (session SQL: a function it does not know may read
     * {@code lastval} or {@code LAST_INSERT_ID()} inside), or a statement whose value the handle
     * may read next, runs on binding {@code b} of a connection where another binding left a value:
     * the value is discarded first, so that nothing reads another borrower's (PostgreSQL
     * {@code DISCARD SEQUENCES}, MySQL and MariaDB {@code LAST_INSERT_ID(0)}, a fresh session's
     * value). One round trip, only then.
     */
    static void discardOthers(HandleLife h, PhysicalConnection p, long b) throws SQLException {
        long by = p.valuesLeftBy();
        if (by == 0 || by == b) {
            return;
        }
        String discard = h.pool.classifier.discardValues();
        if (discard != null) {
            try (java.sql.Statement st = p.raw.createStatement()) {
                st.execute(discard);
            }
        }
        p.noteValuesDiscarded();
    }

    private static SQLException refused(JdbcPool pool, String sql, boolean sameBinding) {
        String what = sql == null ? "a statement" : TransactionPooling.quote(sql);
        String why = sameBinding
                ? "this handle has not run the statement that sets it on the physical connection it holds now, so "
                        + "the value there is the session's from before (another borrower's, or none)"
                : "this handle's earlier statement ran on a physical connection that went back to the pool since "
                        + "(or this is its first statement there), so the value there may be another borrower's";
        return pool.factory.secrets().mask(new SQLException("pool '" + pool.name + "': refused " + what
                + ": it reads a value of an earlier statement (lastval, currval, LAST_INSERT_ID(), FOUND_ROWS(), "
                + "ROW_COUNT(), warnings, diagnostics), and " + why + ". Take the value from the statement itself "
                + "(getGeneratedKeys(), INSERT … RETURNING), run both statements in one transaction, or call "
                + "unwrap(LoomConnection.class).pin() before them", REFUSED));
    }
}
