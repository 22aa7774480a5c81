package dev.loompool.jdbc.internal;

import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.ReleaseMode;
import dev.loompool.jdbc.internal.SqlEffect.Tx;
import java.util.ArrayList;
import java.util.EnumSet;

/**
 * Everything that keeps a handle's physical connection, and the rules that start and end each
 * pin (DESIGN.md §4, the pin table): one per handle, read and written by every path.
 *
 * <p>The transaction pin starts with {@code setAutoCommit(false)}, every statement run while
 * autocommit is off, and SQL that opens a transaction. It ends with {@code commit()},
 * {@code rollback()}, {@code setAutoCommit(true)} or SQL that ends one, but only if the server
 * then reports no transaction open, where the driver tells ({@link WireState}); and whatever the
 * pin says, a connection the server reports inside a transaction is never released. For a driver
 * that cannot tell, the pin alone decides, erring towards pinning.
 */
final class Pins {

    /** The reasons held; STATEMENT and RELEASE_MODE are derived, never stored. Null until the first. */
    private EnumSet<PinReason> held;
    /** The first open statement or metadata result set, then the others: most handles have one. */
    private Tracked first;
    private ArrayList<Tracked> more;
    // No more fields: this object is allocated on every getConnection, and 24 bytes is its size now.

    // ---- the rules ----------------------------------------------------------------------------

    /** Whether the handle must keep {@code p}. */
    boolean hold(PhysicalConnection p, ReleaseMode mode) {
        return first != null || more != null && !more.isEmpty() || held != null && !held.isEmpty()
                || mode == ReleaseMode.CLOSE || p.serverTransactionOpen();
    }

    /** A connection was bound: with autocommit off, the driver begins a transaction at the first call. */
    void bound(PhysicalConnection p) {
        if (!p.current.autoCommit) {
            transactionBegun(p);
        }
    }

    /** Before SQL runs: session state and a transaction pin at once, even if the SQL then fails. */
    void beforeSql(PhysicalConnection p, SqlEffect e) {
        if (e.session) {
            add(PinReason.SESSION_STATE);
            p.sessionDirty = true;
        }
        if (e.tx == Tx.OPEN || !p.current.autoCommit) {
            transactionBegun(p);
        }
    }

    /**
     * After SQL succeeded. For a driver that cannot tell, SQL COMMIT or ROLLBACK ends the pin only
     * in autocommit mode: with autocommit off the driver may have begun the next one in the same text.
     */
    void afterSql(PhysicalConnection p, SqlEffect e) {
        if (e.tx == Tx.ENDED && (p.wireReadable || p.current.autoCommit)) {
            transactionEnded(p);
        }
    }

    /**
     * {@code commit()}, {@code rollback()} or {@code setAutoCommit(true)} ended the JDBC
     * transaction. For a driver that cannot tell, a transaction run in autocommit mode was begun
     * by SQL, which those calls may not end: it stays pinned until SQL ends it or the handle closes.
     */
    void jdbcTransactionEnded(PhysicalConnection p, boolean autoCommitBefore) {
        if (p.wireReadable || !autoCommitBefore) {
            transactionEnded(p);
        }
    }

    /** {@code setAutoCommit(false)} on a bound connection. */
    void autoCommitOff(PhysicalConnection p) {
        transactionBegun(p);
    }

    /** Whether work may be lost if {@code p} goes now: the server's word, or the pin held for it. */
    boolean inTransaction(PhysicalConnection p) {
        return has(PinReason.TRANSACTION) || p.serverTransactionOpen();
    }

    private void transactionBegun(PhysicalConnection p) {
        add(PinReason.TRANSACTION);
        p.transactionDirty = true;
    }

    /** The pin ends, unless the server says the transaction is still open (AND CHAIN, a BEGIN after the COMMIT…). */
    private void transactionEnded(PhysicalConnection p) {
        if (!p.serverTransactionOpen()) {
            remove(PinReason.TRANSACTION);
            p.transactionDirty = false;
        }
    }

    // ---- the reasons ----------------------------------------------------------------------------

    void add(PinReason r) {
        if (held == null) {
            held = EnumSet.of(r);
        } else {
            held.add(r);
        }
    }

    void remove(PinReason r) {
        if (held != null) {
            held.remove(r);
        }
    }

    boolean has(PinReason r) {
        return held != null && held.contains(r);
    }

    /** What pins {@code p} now, the derived reasons included. */
    EnumSet<PinReason> reasons(PhysicalConnection p, ReleaseMode mode) {
        EnumSet<PinReason> reasons = held == null ? EnumSet.noneOf(PinReason.class) : EnumSet.copyOf(held);
        if (statements() > 0) {
            reasons.add(PinReason.STATEMENT);
        }
        if (p.serverTransactionOpen()) {
            reasons.add(PinReason.TRANSACTION);
        }
        if (mode == ReleaseMode.CLOSE) {
            reasons.add(PinReason.RELEASE_MODE);
        }
        return reasons;
    }

    /** Drops every pin but the framework's, closing what is tracked: the connection is going. */
    void dropForConnectionLoss() {
        closeTracked();
        boolean framework = has(PinReason.FRAMEWORK_TRANSACTION);
        held = null;
        if (framework) {
            add(PinReason.FRAMEWORK_TRANSACTION);
        }
    }

    /** Drops every pin: the handle closes. */
    void clear() {
        closeTracked();
        held = null;
    }

    // ---- open statements and metadata result sets ----------------------------------------------

    int statements() {
        return (first == null ? 0 : 1) + (more == null ? 0 : more.size());
    }

    void track(Tracked t) {
        if (first == null) {
            first = t;
            return;
        }
        if (more == null) {
            more = new ArrayList<>(4);
        }
        more.add(t);
    }

    /** Tracks {@code t} unless it is tracked already. */
    void trackOnce(Tracked t) {
        if (first != t && (more == null || !more.contains(t))) {
            track(t);
        }
    }

    /** Removes {@code t} by identity (wrappers may delegate equals); false if it was not tracked. */
    boolean untrack(Tracked t) {
        if (first == t) {
            first = null;
            return true;
        }
        if (more == null) {
            return false;
        }
        for (int i = 0, n = more.size(); i < n; i++) {
            if (more.get(i) == t) {
                more.set(i, more.get(n - 1));
                more.remove(n - 1);
                return true;
            }
        }
        return false;
    }

    /** Closes every tracked statement and result set, quietly: the connection is going. */
    private void closeTracked() {
        Tracked f = first;
        first = null;
        if (f != null) {
            f.closeQuietly();
        }
        if (more != null) {
            more.forEach(Tracked::closeQuietly);
            more.clear();
        }
    }
}
