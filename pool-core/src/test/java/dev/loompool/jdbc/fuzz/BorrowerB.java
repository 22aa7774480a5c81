package dev.loompool.jdbc.fuzz;

import dev.loompool.jdbc.LoomConnection;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.internal.sql.SessionFingerprint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Borrower B: what a session holds that the next borrower would meet, read from the server
 * ({@link SessionFingerprint}) and from the driver (a transaction's characteristics and a write in
 * it, a statement the driver prepares on the server after a few runs, and, where asked for,
 * pgjdbc's oid of a type named without its schema). A fresh session's answer is the reference.
 */
final class BorrowerB {

    private BorrowerB() {
    }

    /** B borrows from the pool, pins (so that every read is one session's), looks, and closes. */
    static Set<String> borrowAndLook(LoomPoolDataSource ds, SeqTarget target, String table, boolean typed) {
        try (Connection b = ds.getConnection()) {
            b.unwrap(LoomConnection.class).pin();
            return look(b, target, table, typed);
        } catch (Throwable t) {
            return Set.of("B failed: " + Outcome.of(t));
        }
    }

    static Set<String> look(Connection b, SeqTarget target, String table, boolean typed) throws SQLException {
        Set<String> lines = new TreeSet<>();
        for (String l : SessionFingerprint.throughHandle(b, target.dialect, List.of(table), target.locks())) {
            if (l.startsWith("setting: plpgsql.")) {
                continue; // PL/pgSQL's settings show once the library is loaded, at a session's first use of it
            }
            if (l.startsWith("setting: ")) {
                // the value counts, not where it came from: a setting put back to the default's value
                // by the pool's reset of a JDBC setter shows source 'session'
                l = l.substring(0, l.lastIndexOf(" | "));
            }
            lines.add(l.replace(table, "{t}"));
        }
        boolean autoCommit = b.getAutoCommit();
        if (autoCommit) {
            b.setAutoCommit(false);
        }
        lines.add("driver: transaction " + answer(b, target.postgres()
                ? "SELECT current_setting('transaction_isolation') || ' ' || current_setting('transaction_read_only')"
                : "SELECT CONCAT(@@tx_isolation, ' ', @@tx_read_only)"));
        lines.add("driver: a write in a transaction " + update(b, "INSERT INTO " + probe(target) + " VALUES (1)"));
        b.rollback();
        if (autoCommit) {
            b.setAutoCommit(true);
        }
        // pgjdbc prepares on the server from the fifth run on and keeps the name: a reset that drops it
        // on the server must drop it in the driver too
        lines.add("driver: a statement prepared and run 6 times " + preparedSixTimes(b, target));
        if (typed) {
            lines.add("driver: a parameter typed " + target.prefix + "t is " + typeOf(b, target, false));
            lines.add("driver: an array of " + target.prefix + "t is " + typeOf(b, target, true));
        }
        return lines;
    }

    /** The probe table, named with its schema or database: the steps move the search path and the catalog. */
    private static String probe(SeqTarget target) {
        return (target.postgres() ? "public." : "test.") + target.prefix + "probe";
    }

    private static String answer(Connection c, String sql) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : "no row";
        } catch (SQLException e) {
            return "fails " + e.getSQLState();
        }
    }

    private static String update(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            s.executeUpdate(sql);
            return "succeeds";
        } catch (SQLException e) {
            return "fails " + e.getSQLState();
        }
    }

    private static String preparedSixTimes(Connection c, SeqTarget target) {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + probe(target) + " WHERE id = ?")) {
            String last = null;
            for (int i = 0; i < 6; i++) {
                ps.setInt(1, i);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    last = rs.getString(1);
                }
            }
            return "answers " + last;
        } catch (SQLException e) {
            return "fails " + e.getSQLState();
        }
    }

    private static String typeOf(Connection c, SeqTarget target, boolean array) {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_typeof(?)::text")) {
            if (array) {
                ps.setArray(1, c.createArrayOf(target.prefix + "t", new Object[] {"a"}));
            } else {
                ps.setObject(1, StepRunner.pgObject(target.prefix + "t"));
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "no row";
            }
        } catch (SQLException e) {
            return "fails " + e.getSQLState();
        }
    }
}
