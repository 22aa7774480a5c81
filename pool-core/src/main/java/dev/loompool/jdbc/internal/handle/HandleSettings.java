package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.driver.Settings;
import java.lang.invoke.VarHandle;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * The JDBC settings of a logical connection ({@link LogicalConnection#own}): what the handle chose
 * is remembered, applied at once if it is bound, and replayed on every physical connection it
 * binds later (in {@link LogicalConnection#bind()}). Reads come from the bound connection, else
 * the handle's choice, else the pool's defaults, without binding.
 */
final class HandleSettings {

    private HandleSettings() {
    }

    /** The settings the handle chose, to write one into; made at the first choice (most handles make none). */
    static Settings chosen(LogicalConnection h) throws SQLException {
        h.ensureOpen();
        if (h.own == null) {
            h.own = new Settings();
        }
        return h.own;
    }

    /**
     * Records that the handle chose a value, and applies it now if bound: as a run of the handle,
     * so a release another thread decides meanwhile waits for the setter to land.
     */
    static void changed(LogicalConnection h, SessionAttribute a) throws SQLException {
        h.own.marked.add(a);
        h.choices++; // under the settings' turn: no two setters add at once
        // The choice is out before the binding is read: a bind on another thread that replayed the
        // settings before it sees the count change after it published the binding, and applies it
        // itself (LogicalConnection.bind); one of the two always sees the other.
        VarHandle.fullFence();
        if (h.physical == null) {
            return; // replayed at the next bind
        }
        h.runStarted();
        try {
            applyBound(h, a);
        } finally {
            h.runEnded();
        }
    }

    /**
     * A setter on another thread chose while this thread bound, and did not see the binding: its
     * choice is applied now, in the settings' turn, before the bind's pins are read. Every marked
     * setting is applied; only what differs reaches the driver.
     */
    static void chosenWhileBinding(LogicalConnection h) throws SQLException {
        boolean turn = SettingsTurn.take(h);
        h.runStarted();
        try {
            for (SessionAttribute a : h.own.marked) {
                if (a != SessionAttribute.ISOLATION || !h.pool.transactionPooler) {
                    applyBound(h, a);
                }
            }
        } finally {
            h.runEnded();
            SettingsTurn.give(h, turn);
        }
    }

    private static void applyBound(LogicalConnection h, SessionAttribute a) throws SQLException {
        PhysicalConnection p = h.physical; // read in the run: a release that came first left it null
        if (p != null) {
            p.ranOn(Thread.currentThread());
            if (!p.enter(h.heldBinding())) { // a close or the reclaimer overtook this call: it must not reach the connection
                throw TransactionCalls.overtaken(h);
            }
            try {
                p.apply(h.own, a);
            } catch (SQLException e) {
                // Refused (pgjdbc: read-only in the middle of a transaction): the choice does not
                // stand, or it would take effect at the next binding (and route it to a replica).
                h.own.copyFrom(p.current(), a);
                throw h.error(e);
            } finally {
                p.leave();
            }
        }
    }

    // ---- the handle's setters -------------------------------------------------------------------------

    static void setTransactionIsolation(LogicalConnection h, int level) throws SQLException {
        if (h.pool.transactionPooler) { // sent at the start of each transaction, not set on the session
            TransactionIsolation.set(h, level);
            return;
        }
        chosen(h).chooseIsolation(level);
        PhysicalConnection p = h.physical;
        if (p != null && !p.sessionDirty() && p.current().isolation() == level) {
            driverAnswers(h, p, c -> c.setTransactionIsolation(level));
        }
        changed(h, SessionAttribute.ISOLATION);
    }

    static void setReadOnly(LogicalConnection h, boolean readOnly) throws SQLException {
        PhysicalConnection p = h.physical;
        if (!readOnly && p != null && p.home() != h.pool) { // writes must not follow onto the replica it holds
            throw stillBound(h, p);
        }
        chosen(h).chooseReadOnly(readOnly);
        if (p != null && !p.sessionDirty() && p.current().readOnly() == readOnly) {
            driverAnswers(h, p, c -> c.setReadOnly(readOnly));
        }
        changed(h, SessionAttribute.READ_ONLY);
    }

    /** A call of the driver's connection that answers for itself. */
    @FunctionalInterface
    interface DriverCall<T> {
        T on(java.sql.Connection raw) throws SQLException;
    }

    /** A setter of the driver's connection. */
    @FunctionalInterface
    interface DriverSetter {
        void on(java.sql.Connection raw) throws SQLException;
    }

    /**
     * {@code setReadOnly} or {@code setTransactionIsolation} of the value the bound connection has:
     * the pool would not call the driver ({@link PhysicalConnection#apply} sets only what changes),
     * but the driver answers all the same, as without the pool: pgjdbc refuses both in the middle of
     * a transaction whatever the value (25001), MySQL Connector/J sends them to the server. Not on
     * the statement path.
     */
    private static void driverAnswers(LogicalConnection h, PhysicalConnection p, DriverSetter call) throws SQLException {
        driverAnswer(h, p, c -> {
            call.on(c);
            return null;
        });
    }

    /** {@code call} on the connection {@code h} holds, as a run of the handle (a close or a release waits for it). */
    static <T> T driverAnswer(LogicalConnection h, PhysicalConnection p, DriverCall<T> call) throws SQLException {
        h.runStarted();
        try {
            p.ranOn(Thread.currentThread());
            if (!p.enter(h.heldBinding())) {
                throw TransactionCalls.overtaken(h);
            }
            try {
                return call.on(p.raw);
            } catch (SQLException e) {
                throw h.error(e);
            } finally {
                p.leave();
            }
        } finally {
            h.runEnded();
        }
    }

    /**
     * {@code setReadOnly(false)} on a handle that holds a replica's connection {@code p} (an open
     * statement, result set or transaction pins it): the writes that follow would run there.
     */
    private static SQLException stillBound(LogicalConnection h, PhysicalConnection p) {
        return new SQLException("pool '" + h.pool.name + "': setReadOnly(false) while this handle holds a connection of "
                + "the replica pool '" + p.home().name + "' (pinned by " + h.pinReasons() + "); close its statements and "
                + "result sets, or end its transaction, first: what follows would run on the replica ("
                + p.home().pool.stats() + ")", "25000");
    }

    /** Whether this unit of work goes to a replica: the handle's readOnly, else the pool's default. */
    static boolean readOnlyWork(LogicalConnection h) {
        return h.own != null && h.own.marked.contains(SessionAttribute.READ_ONLY) ? h.own.readOnly() : h.pool.readOnlyByDefault;
    }

    static void setCatalog(LogicalConnection h, String catalog) throws SQLException {
        if (catalog == null) {
            // Drivers differ (MariaDB ignores it, MySQL Connector/J refuses it): the driver answers,
            // and the handle's choice stays as it was.
            java.sql.Connection raw = h.bind();
            try {
                raw.setCatalog(null);
            } catch (SQLException e) {
                throw h.error(e);
            } finally {
                h.done();
            }
            return;
        }
        Settings defaults = defaults(h);
        if (defaults.catalog() == null && defaults.schema() != null) {
            // The driver names the database a schema, not a catalog (MySQL Connector/J with
            // databaseTerm=SCHEMA): it ignores setCatalog, as setSchema below on a driver without
            // schemas. (No catalog and no schema is a connection without a database, whose
            // setCatalog chooses one: MariaDB, MySQL Connector/J.)
            h.ensureOpen();
            return;
        }
        chosen(h).chooseCatalog(catalog);
        changed(h, SessionAttribute.CATALOG);
    }

    static void setSchema(LogicalConnection h, String schema) throws SQLException {
        if (h.pool.transactionPooler) {
            checkBehindPooler(h, SessionAttribute.SCHEMA, w -> w.chooseSchema(schema), "setSchema(" + schema + ")");
        }
        if (defaults(h).schema() == null) {
            // The driver reports no schema (MariaDB, MySQL Connector/J): it ignores setSchema, as
            // JDBC lets a driver without schemas do. The handle does not remember a choice that
            // nothing applies, or getSchema() would name a schema the SQL does not run in.
            h.ensureOpen();
            return;
        }
        if (schema == null) {
            // The driver's way back to its default (pgjdbc: SET search_path TO DEFAULT), which depends
            // on the role and the server: the session is kept, as session state, and asked.
            java.sql.Connection raw = h.bind();
            try {
                raw.setSchema(null);
                Pins.add(h, dev.loompool.jdbc.PinReason.SESSION_STATE, "setSchema(null)");
                h.physical.noteSessionState();
                h.physical.noteSearchPathChanged();
            } catch (SQLException e) {
                throw h.error(e);
            } finally {
                h.done();
            }
            return;
        }
        if (h.physical == null && !h.lostTransaction && !view(h, SessionAttribute.AUTO_COMMIT).autoCommit()) {
            // Autocommit off: the plain driver's SET is the first statement of the transaction it
            // begins, which a rollback undoes; so is it here (PhysicalConnection.schemaInTransaction).
            TransactionCalls.beginsHere(h);
        }
        chosen(h).chooseSchema(schema);
        changed(h, SessionAttribute.SCHEMA);
    }

    static void setHoldability(LogicalConnection h, int holdability) throws SQLException {
        chosen(h).chooseHoldability(holdability);
        changed(h, SessionAttribute.HOLDABILITY);
    }

    static void setNetworkTimeout(LogicalConnection h, Executor executor, int milliseconds) throws SQLException {
        Settings s = chosen(h);
        s.chooseNetworkTimeout(executor, milliseconds);
        changed(h, SessionAttribute.NETWORK_TIMEOUT);
    }

    // ---- what the setters and getters share -----------------------------------------------------------

    /**
     * Behind a pooler in transaction mode, a setting the driver sends as session SQL may only
     * keep the pool's default (TransactionPooling).
     */
    static void checkBehindPooler(LogicalConnection h, SessionAttribute a, Consumer<Settings> value, String call)
            throws SQLException {
        Settings wanted = new Settings();
        value.accept(wanted);
        if (!defaults(h).same(wanted, a)) {
            throw TransactionPooling.refusedSetting(h.pool, call);
        }
    }

    /**
     * Where to read a setting from: the bound connection, else the handle's choice, else the
     * defaults. Once SQL changed the session ({@code SET autocommit=0}, {@code USE}, {@code SET
     * SESSION TRANSACTION ISOLATION LEVEL}, {@code search_path}…), the driver is asked, as a plain
     * connection would be: the session-state pin keeps that connection bound until close. The
     * common path (no session SQL) reads memory only.
     */
    static Settings view(LogicalConnection h, SessionAttribute a) throws SQLException {
        h.ensureOpen();
        PhysicalConnection p = h.physical;
        if (p != null) {
            return p.sessionDirty() || a == SessionAttribute.SCHEMA && p.schemaUncertain() ? askDriver(h, p, a) : p.current();
        }
        if (h.own != null && h.own.marked.contains(a)) {
            return h.own;
        }
        return defaults(h);
    }

    /**
     * What the driver says of {@code a} now, remembered as the connection's current value (and as
     * the handle's choice, if it made one), so that what the pool believes is what the session
     * has. A later setter applies whatever it believes: {@link PhysicalConnection#apply} always
     * sets a connection whose session SQL changed, and the reset restores the defaults.
     */
    private static Settings askDriver(LogicalConnection h, PhysicalConnection p, SessionAttribute a) throws SQLException {
        try {
            return driverSays(h, p, a);
        } catch (SQLException e) {
            throw h.error(e);
        }
    }

    /**
     * Before the handle lets go of {@code p}, on which its {@code setSchema} ran inside a
     * transaction: where the driver sends it as SQL (pgjdbc's {@code SET SESSION search_path}), a
     * rollback, whole or to a savepoint, by JDBC or by SQL the pool does not read ({@code ROLLBACK
     * TO}, {@code ROLLBACK AND CHAIN}, the commit of an aborted transaction), undid it, as it does
     * without the pool. The handle takes what the driver says, so that its later bindings run where
     * the plain connection would. One round trip, only after such a transaction.
     *
     * Where the driver cannot say (pgjdbc's {@code getSchema()} is null when the path's schema does
     * not exist, whether the handle's or the one a rollback went back to), the session is kept:
     * pinned as session state until the handle closes, it stays the plain connection's.
     *
     * @return whether the handle may let go now (false: the connection was lost and dropped, or is kept)
     */
    static boolean schemaBeforeRelease(LogicalConnection h, PhysicalConnection p) {
        if (!p.enter(h.heldBinding())) {
            return true; // a close on another thread ended the binding: the handle ends, its choice with it
        }
        SQLException failed = null;
        String now = null;
        try {
            now = p.raw.getSchema();
            if (now != null) {
                p.current().chooseSchema(now);
                if (h.own != null && h.own.marked.contains(SessionAttribute.SCHEMA)) {
                    h.own.chooseSchema(now);
                }
            }
        } catch (SQLException e) {
            failed = e;
        } finally {
            p.leave();
        }
        if (failed == null && now == null) {
            Pins.add(h, dev.loompool.jdbc.PinReason.SESSION_STATE, "setSchema()");
            p.noteSessionState(); // reset before reuse; the getter asks the driver from now on
            return false;
        }
        if (failed != null) {
            // Lost: the session the handle relied on (its schema is unknown) ends the handle, as the
            // plain connection's next call fails (Pins.lostSession); else it keeps its last choice.
            h.error(failed);
            p.schemaSettled();
            return h.physical == p;
        }
        p.schemaSettled();
        return true;
    }

    private static Settings driverSays(LogicalConnection h, PhysicalConnection p, SessionAttribute a) throws SQLException {
        p.current().readFrom(p.raw, a);
        if (!p.current().same(p.defaults(), a)) {
            p.current().marked.add(a);
        }
        if (h.own != null && h.own.marked.contains(a)) {
            h.own.copyFrom(p.current(), a);
        }
        return p.current();
    }

    /** The pool's defaults, as the first connection took them: one is made to learn them if none was. */
    static Settings defaults(LogicalConnection h) throws SQLException {
        Settings defaults = h.pool.factory.learnedDefaults();
        if (defaults == null) { // no connection made yet: make one to learn them
            h.bind();
            h.done();
            // Not the connection's current settings: once it went back, another borrower's
            // setTransactionIsolation(SERIALIZABLE) would show there, and a caller that asked
            // for the level to decide whether to set it would skip it (as Spring does).
            defaults = h.pool.factory.learnedDefaults();
        }
        return defaults;
    }
}
