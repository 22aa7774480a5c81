package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.physical.PinTimes;
import dev.loompool.jdbc.internal.sql.SqlEffect;
import dev.loompool.jdbc.PinReason;
import dev.loompool.jdbc.ReleaseMode;
import dev.loompool.jdbc.internal.sql.SqlEffect.Tx;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;

/**
 * Everything that keeps a handle's physical connection, and the rules that start and end each
 * pin (DESIGN.md §4, the pin table), read and written by every path.
 *
 * <p>The transaction pin starts with {@code setAutoCommit(false)}, every statement run while
 * autocommit is off, and SQL that opens a transaction. It ends with {@code commit()},
 * {@code rollback()}, {@code setAutoCommit(true)} or SQL that ends one, but only if the server
 * then reports no transaction open, where the driver tells ({@link WireState}); and whatever the
 * pin says, a connection the server reports inside a transaction is never released. For a driver
 * that cannot tell, the pin alone decides, erring towards pinning.
 *
 * <p>The rules only: what they read and write is the handle's pin set ({@link PinSet}, in
 * {@link HandleLife}'s {@code pins}). Several threads may use a handle at once, so each change of
 * the set is made under the handle's lock ({@link HandleLife#lockState}), where the release decision
 * reads it; what a change closes (its statements) is closed after the lock is let go.
 */
final class Pins {

    // The record is the handle's PinSet, made when the handle first holds a reason or a second
    // statement; until then the handle keeps its one open statement itself (HandleLife.pins): a set
    // made on every getConnection was 24 bytes more a cycle (P6).

    // What started a pin when no SQL did: the call, as the endpoint, a pin warning and Flight Recorder
    // show it (PhysicalConnection.pinStartedBy). Constants: a start stores a reference, nothing more.
    static final String AUTOCOMMIT_OFF = "setAutoCommit(false)";
    static final String PIN = "pin()";
    static final String FRAMEWORK = "beginFrameworkTransaction()";
    static final String CREATE_STATEMENT = "createStatement()";
    static final String ARRAY = "createArrayOf()";
    private static final String RELEASE_MODE_CLOSE = "releaseMode=CLOSE";

    private Pins() {
    }

    // ---- the rules ----------------------------------------------------------------------------

    /** Whether the handle must keep {@code p}. */
    static boolean hold(HandleLife h, PhysicalConnection p, ReleaseMode mode) {
        Object pins = h.pins;
        return pins != null && (!(pins instanceof PinSet set) || set.holds())
                || mode == ReleaseMode.CLOSE || p.serverTransactionOpen();
    }

    /** A connection was bound: with autocommit off, the driver begins a transaction at the first call. */
    static void bound(HandleLife h, PhysicalConnection p) {
        if (h.pins instanceof PinSet set && set.anyReason()) { // held while unbound (pin(), a framework transaction): timed from the bind
            for (PinReason r : set.reasons()) {
                started(h, p, r, p.handedOutAt(), r == PinReason.FRAMEWORK_TRANSACTION ? FRAMEWORK : PIN);
            }
        }
        if (h.pool.releaseMode == ReleaseMode.CLOSE) {
            p.pinSeen(PinReason.RELEASE_MODE, RELEASE_MODE_CLOSE);
        }
        if (!p.current().autoCommit()) {
            begins(h, p, false, AUTOCOMMIT_OFF);
        }
    }

    /**
     * Before SQL runs: session state and a transaction pin at once, even if the SQL then fails; a
     * read of an earlier statement's value is refused unless it is this handle's
     * ({@link StatementValues}). The common statement pays a field write for that.
     */
    static void beforeSql(HandleLife h, PhysicalConnection p, SqlEffect e, String sql) throws SQLException {
        p.ranOn(Thread.currentThread());
        long b = p.boundAs();
        if (e.session) {
            // first: what the statement leaves itself must not count as the value there (its function may read before it)
            StatementValues.discardOthers(h, p, b);
        }
        if (e.values != 0) {
            StatementValues.before(h, p, b, e, sql);
        } else if (p.lastStatement() != b) { // the common statement: one read, and a write on the first of a binding
            StatementValues.ran(h, p, b);
        }
        if (p.arraysMadeBy() != 0) {
            arraysBound(h, p, b);
        }
        if (e.session) {
            add(h, PinReason.SESSION_STATE, sql);
            p.noteSessionState();
        }
        if (e.tx == Tx.OPEN || !p.current().autoCommit()) {
            begins(h, p, e.tx == Tx.OPEN, sql);
        }
    }

    /**
     * The transaction pin of a statement (or a binding) that may begin one: autocommit read again under the lock,
     * so a {@code setAutoCommit(true)} on another thread, which ends the pin under it after the
     * driver switched, either ends this one too or made it unneeded. Read once without it, the
     * pin could start after that end and keep the connection with autocommit on until the handle closed.
     */
    private static void begins(HandleLife h, PhysicalConnection p, boolean opens, String sql) {
        h.lockState();
        try {
            if (opens || !p.current().autoCommit()) {
                addLocked(h, PinReason.TRANSACTION, sql);
                p.noteTransactionBegun();
            }
        } finally {
            h.unlockState();
        }
    }

    /**
     * After SQL succeeded. For a driver that cannot tell, SQL COMMIT or ROLLBACK ends the pin only
     * in autocommit mode: with autocommit off the driver may have begun the next one in the same text.
     */
    static void afterSql(HandleLife h, PhysicalConnection p, SqlEffect e) {
        if (e.tx == Tx.ENDED && (p.wireReadable || p.current().autoCommit())) {
            transactionEnded(h, p);
        }
    }

    /**
     * {@code commit()}, {@code rollback()} or {@code setAutoCommit(true)} ended the JDBC
     * transaction. For a driver that cannot tell, a transaction run in autocommit mode was begun
     * by SQL, which those calls may not end: it stays pinned until SQL ends it or the handle closes.
     */
    static void jdbcTransactionEnded(HandleLife h, PhysicalConnection p, boolean autoCommitBefore) {
        // The commit or rollback is the handle's next exchange with the server: a value its last statement
        // left is not kept past it (a later read on another binding is refused, never answered wrongly)
        remove(h, PinReason.STATEMENT_VALUE);
        if (p.wireReadable || !autoCommitBefore) {
            transactionEnded(h, p);
        }
    }

    /**
     * After a driver error on a live connection: a failed {@code commit()} or SQL {@code COMMIT}
     * (a deferred constraint), a deadlock the server answered with a rollback, a text that
     * committed and then failed: the server may have ended the transaction, which no successful
     * end reported. Where the server says no transaction is open, the pin ends (with autocommit
     * off the next statement begins one again, as on the plain driver); else it stays. Only the
     * error path pays (a MariaDB ping confirms the state after an error).
     */
    static void afterError(HandleLife h, PhysicalConnection p) {
        if (p.wireReadable && has(h, PinReason.TRANSACTION) && !(p.savepointsSet() && !p.current().autoCommit())) {
            // a savepoint is the session's even where the server reports no transaction (MariaDB
            // before the transaction touched a table): it ends with commit or rollback
            transactionEnded(h, p);
        }
    }

    /** {@code setAutoCommit(false)} on a bound connection. */
    static void autoCommitOff(HandleLife h, PhysicalConnection p) {
        transactionBegun(h, p, AUTOCOMMIT_OFF);
    }

    /**
     * Whether {@code p}, which just broke, took with it a session the handle relied on: state SQL
     * left on it (a {@code SET}, a session lock, a temporary table), or an explicit {@code pin()}.
     * An identity read alone ({@code pg_backend_pid()}) is no such reliance: the handle goes on,
     * on a fresh connection with an identity of its own.
     */
    static boolean lostSession(HandleLife h, PhysicalConnection p) {
        return has(h, PinReason.SESSION_STATE) || has(h, PinReason.EXPLICIT) && p.pinStartedBy(PinReason.EXPLICIT) == PIN
                || p.schemaUncertain(); // a schema set in the transaction, which no one can now say was kept
    }

    /**
     * Whether {@code p}, which just broke, took work with it: the pin held for a transaction, or the
     * server's last word before the error (an error packet carries no state, and a broken connection
     * cannot be asked; MariaDB). In autocommit with no transaction begun, nothing was lost: the next
     * statement binds a fresh connection, as the plain driver's next connection just works.
     */
    static boolean lostWork(HandleLife h, PhysicalConnection p) {
        return has(h, PinReason.TRANSACTION) || p.transactionOpenBeforeError();
    }

    private static void transactionBegun(HandleLife h, PhysicalConnection p, String by) {
        add(h, PinReason.TRANSACTION, by);
        p.noteTransactionBegun();
    }

    /** The pin ends, unless the server says the transaction is still open (AND CHAIN, a BEGIN after the COMMIT…). */
    private static void transactionEnded(HandleLife h, PhysicalConnection p) {
        if (!p.serverTransactionOpen()) {
            remove(h, PinReason.TRANSACTION);
            p.noteTransactionEnded();
            p.forgetIsolationSent(); // the next transaction is sent its own (TransactionIsolation)
        }
    }

    /**
     * An array the handle made ({@code createArrayOf}) holds no server state: it pins only until
     * the handle's next statement runs, the statement it is made for (Hibernate's batch fetch
     * makes one per {@code = any(?)}). Pinned until close, it kept an open-in-view session's
     * connection for the rest of the request (issue 28). Used later, after its binding ended, it
     * refuses ({@link LentObject}). Another reason for the same pin keeps it.
     */
    static void arrayMade(HandleLife h, PhysicalConnection p) {
        if (!has(h, PinReason.EXPLICIT)) {
            add(h, PinReason.EXPLICIT, ARRAY);
            p.noteArraysMade();
        }
    }

    /** The handle's next statement runs on binding {@code b}: the pin of the arrays made for it ends. */
    private static void arraysBound(HandleLife h, PhysicalConnection p, long b) {
        if (p.arraysMadeBy() == b) {
            remove(h, PinReason.EXPLICIT);
        }
        p.forgetArraysMade();
    }

    // ---- the reasons ----------------------------------------------------------------------------

    /** {@code r} holds the handle from now, started by {@code by}: the SQL, or a call's label (a reference, masked when read). */
    static void add(HandleLife h, PinReason r, String by) {
        h.lockState();
        try {
            addLocked(h, r, by);
        } finally {
            h.unlockState();
        }
    }

    private static void addLocked(HandleLife h, PinReason r, String by) {
        set(h).add(r);
        PhysicalConnection p = h.physical;
        if (p != null) {
            if (r == PinReason.EXPLICIT) {
                p.forgetArraysMade(); // pinned for something else now (arrayMade sets it after): until close
            }
            started(h, p, r, 0, by);
        }
    }

    static void remove(HandleLife h, PinReason r) {
        if (!(h.pins instanceof PinSet)) {
            return; // holds no reason: the common statement's commit
        }
        h.lockState();
        try {
            if (h.pins instanceof PinSet set) {
                set.remove(r);
            }
            PhysicalConnection p = h.physical;
            if (p != null && (p.pinsTimed() & PinTimes.bit(r)) != 0) {
                h.pool.pinTimes.ended(p, r, h.pool.clock.nanoTime() - p.pinSince(r));
            }
        } finally {
            h.unlockState();
        }
    }

    /**
     * {@code r} holds {@code p} from now, or from {@code at} if not 0: a per-statement reason sets a
     * bit (its sample is the binding's length), the others read the clock once, when they start.
     */
    private static void started(HandleLife h, PhysicalConnection p, PinReason r, long at, String by) {
        int bit = PinTimes.bit(r);
        if (PinTimes.lazy(r)) {
            p.pinSeen(r, by); // STATEMENT_VALUE: the statement that left the value kept now
        } else if ((p.pinsTimed() & bit) == 0) { // a transaction is re-added by each of its statements: one read
            PinTimes.began(p, r, at != 0 ? at : h.pool.clock.nanoTime(), by);
        }
    }

    static boolean has(HandleLife h, PinReason r) {
        return h.pins instanceof PinSet set && set.has(r);
    }

    /** The handle's pin set, made now if it had none (its one open statement, if any, goes in). */
    private static PinSet set(HandleLife h) {
        Object pins = h.pins;
        if (pins instanceof PinSet set) {
            return set;
        }
        PinSet set = new PinSet((Tracked) pins);
        h.pins = set;
        return set;
    }

    /** What pins {@code p} now, the derived reasons included. */
    static EnumSet<PinReason> reasons(HandleLife h, PhysicalConnection p, ReleaseMode mode) {
        EnumSet<PinReason> reasons = h.pins instanceof PinSet set ? set.reasons() : EnumSet.noneOf(PinReason.class);
        if (statements(h) > 0 || h.running()) { // a call still running on another thread holds it as a statement does
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
    static void dropForConnectionLoss(HandleLife h) {
        Object tracked;
        h.lockState();
        try {
            tracked = takeTracked(h);
            if (h.pins instanceof PinSet set) {
                boolean framework = set.has(PinReason.FRAMEWORK_TRANSACTION);
                set.clearReasons();
                if (framework) {
                    set.add(PinReason.FRAMEWORK_TRANSACTION); // the connection is going: nothing to time it on
                }
            }
        } finally {
            h.unlockState();
        }
        closeTracked(tracked);
    }

    /** Drops every pin: the handle closes. */
    static void clear(HandleLife h) {
        Object tracked;
        h.lockState();
        try {
            tracked = takeTracked(h);
            if (h.pins instanceof PinSet set) {
                set.clearReasons();
            }
        } finally {
            h.unlockState();
        }
        closeTracked(tracked);
    }

    // ---- open statements and metadata result sets ----------------------------------------------

    static int statements(HandleLife h) {
        Object pins = h.pins;
        return pins == null ? 0 : pins instanceof PinSet set ? set.trackedCount() : 1;
    }

    /**
     * A plain {@code Statement} runs {@code sql}: if its creation started the statement pin, its first
     * SQL names the pin instead. Only the plain statement's path pays the read, not a prepared one's.
     */
    static void plainSql(HandleLife h, String sql) {
        PhysicalConnection p = h.physical;
        if (p != null) {
            p.statementPinNamed(CREATE_STATEMENT, sql);
        }
    }

    /** Tracks {@code t}, opened by {@code by} (its SQL, or a label): a reference kept if it starts the pin. */
    static void track(HandleLife h, Tracked t, String by) {
        h.lockState();
        try {
            trackLocked(h, t, by);
        } finally {
            h.unlockState();
        }
    }

    /**
     * {@link #track} at the end of the run that made {@code t} (a prepare): the track and the run's
     * end in one step of the handle's lock. On every prepare (P1).
     */
    static void trackEndingRun(HandleLife h, Tracked t, String by) {
        h.lockStateInRun();
        try {
            trackLocked(h, t, by);
        } finally {
            h.unlockEndingRun();
        }
    }

    private static void trackLocked(HandleLife h, Tracked t, String by) {
        PhysicalConnection p = h.physical;
        Object pins = h.pins;
        if (p != null) {
            // its sample is the binding's length: no clock per statement; the first tracked starts the pin
            p.statementPinSeen(pins == null || pins instanceof PinSet set && set.trackedCount() == 0, by);
        }
        if (pins == null) {
            h.pins = t; // the common handle's one statement: no set made
        } else {
            set(h).track(t);
        }
    }

    /**
     * Removes {@code t} by identity (wrappers may delegate equals); false if it was not tracked.
     * The last one out leaves nothing tracked: that is the statement pin's end.
     */
    static boolean untrack(HandleLife h, Tracked t) {
        h.lockState();
        try {
            return untrackLocked(h, t);
        } finally {
            h.unlockState();
        }
    }

    /** {@link #untrack} for the holder of the handle's lock. */
    static boolean untrackLocked(HandleLife h, Tracked t) {
        Object pins = h.pins;
        if (pins == t) {
            h.pins = null;
            return true;
        }
        return pins instanceof PinSet set && set.untrack(t);
    }

    /** Under the lock: takes out every tracked statement and result set, to be closed after it. */
    private static Object takeTracked(HandleLife h) {
        Object pins = h.pins;
        if (pins instanceof PinSet set) {
            return set.takeTracked();
        }
        h.pins = null;
        return pins;
    }

    /** Closes what {@link #takeTracked} took out, quietly: the connection is going. */
    private static void closeTracked(Object now) {
        if (now instanceof Tracked one) {
            one.closeQuietly();
        } else if (now instanceof ArrayList<?> all) {
            // taken out under the lock: no thread of the handle changes it any more
            for (Object t : all) {
                ((Tracked) t).closeQuietly();
            }
        }
    }
}
