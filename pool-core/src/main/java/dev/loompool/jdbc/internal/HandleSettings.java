package dev.loompool.jdbc.internal;

import java.sql.SQLException;
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

    /** Records that the handle chose a value, and applies it now if bound. */
    static void changed(LogicalConnection h, Attr a) throws SQLException {
        h.own.marked.add(a);
        PhysicalConnection p = h.physical;
        if (p != null) {
            try {
                p.apply(h.own, a);
            } catch (SQLException e) {
                // Refused (pgjdbc: read-only in the middle of a transaction): the choice does not
                // stand, or it would take effect at the next binding (and route it to a replica).
                h.own.copyFrom(p.current, a);
                throw h.error(e);
            }
        }
    }

    /**
     * Behind a pooler in transaction mode, a setting the driver sends as session SQL may only
     * keep the pool's default (TransactionPooling).
     */
    static void checkBehindPooler(LogicalConnection h, Attr a, Consumer<Settings> value, String call)
            throws SQLException {
        Settings wanted = new Settings();
        value.accept(wanted);
        if (!defaults(h).same(wanted, a)) {
            throw TransactionPooling.refusedSetting(h.pool, call);
        }
    }

    /** Where to read a setting from: the bound connection, else the handle's choice, else the defaults. */
    static Settings view(LogicalConnection h, Attr a) throws SQLException {
        h.ensureOpen();
        PhysicalConnection p = h.physical;
        if (p != null) {
            return p.current;
        }
        if (h.own != null && h.own.marked.contains(a)) {
            return h.own;
        }
        return defaults(h);
    }

    /** The pool's defaults, as the first connection took them: one is made to learn them if none was. */
    static Settings defaults(LogicalConnection h) throws SQLException {
        Settings defaults = h.pool.factory.learnedDefaults();
        if (defaults == null) { // no connection made yet: make one to learn them
            h.bind();
            defaults = h.physical.current;
            h.done();
        }
        return defaults;
    }
}
