package dev.loompool.bench.chaos;

import dev.loompool.testsupport.PgCluster;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The workload: accounts with a fixed total, and transfers between them. A transfer is one
 * transaction of two UPDATEs; if a pool ever let half of one commit (a connection handed to another
 * borrower inside a transaction, a commit on the wrong connection), the sum would change.
 */
final class Bank {

    /** The database of the bank, created in the suite's private cluster. */
    static final String DATABASE = "chaos";
    static final long INITIAL_BALANCE = 1_000;

    private final PgCluster cluster;
    private final int accounts;

    Bank(PgCluster cluster, int accounts) {
        this.cluster = cluster;
        this.accounts = accounts;
    }

    long expectedTotal() {
        return INITIAL_BALANCE * accounts;
    }

    /** Drops and recreates the accounts, every balance back to its initial value. */
    void reset() throws SQLException {
        try (Connection c = cluster.admin(DATABASE); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS accounts");
            s.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL)");
            s.execute("INSERT INTO accounts SELECT g, " + INITIAL_BALANCE + " FROM generate_series(1, " + accounts
                    + ") g");
            s.execute("VACUUM ANALYZE accounts");
        }
    }

    /** The sum of all balances, read in one statement (one snapshot) over a fresh admin connection. */
    long total() throws SQLException {
        try (Connection c = cluster.admin(DATABASE); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT coalesce(sum(balance), 0), count(*) FROM accounts")) {
            rs.next();
            if (rs.getInt(2) != accounts) {
                throw new IllegalStateException("the bank has " + rs.getInt(2) + " accounts, expected " + accounts);
            }
            return rs.getLong(1);
        }
    }

    /**
     * One transfer through {@code ds}: autocommit off, debit and credit in id order (so two
     * transfers never wait on each other's rows in opposite orders), commit. On failure it rolls
     * back if the connection still allows it and rethrows the original exception.
     */
    void transfer(DataSource ds) throws SQLException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int from = 1 + random.nextInt(accounts);
        int to = 1 + random.nextInt(accounts - 1);
        if (to >= from) {
            to++;
        }
        long amount = 1 + random.nextInt(100);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("UPDATE accounts SET balance = balance + ? WHERE id = ?")) {
                update(ps, Math.min(from, to), from < to ? -amount : amount);
                update(ps, Math.max(from, to), from < to ? amount : -amount);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c, e);
                throw e;
            }
        }
    }

    private static void update(PreparedStatement ps, int id, long delta) throws SQLException {
        ps.setLong(1, delta);
        ps.setInt(2, id);
        if (ps.executeUpdate() != 1) {
            throw new SQLException("account " + id + " not found");
        }
    }

    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            if (!c.isClosed()) {
                c.rollback();
            }
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
