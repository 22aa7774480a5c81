package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.OnEveryDriver.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.io.InputStream;
import java.sql.Blob;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Objects that outlive their handle refuse: a statement, result set, LOB or LOB stream kept after
 * its handle closed fails with a clear exception instead of acting on the next borrower's session, and
 * its use (on another thread, twice, or failing in the driver) leaves the connection lent again, not
 * retired or counted forever.
 */
class LentObjectsOfAClosedHandleRefuseTest extends OnRealDatabases {

    /**
     * A prepares, closes its handle, B gets the same connection and opens a transaction: A's stale
     * statement must not run inside B's transaction (nor anywhere).
     */
    @Test
    void statementOfAClosedHandleDoesNotRunInBsTransactionOnPostgres() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        Connection a = ds.getConnection();
        PreparedStatement ps = a.prepareStatement("INSERT INTO " + table + " VALUES (?)");
        Statement st = a.createStatement();
        long pidA = pgPid(a);
        a.close();
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            run(b, "INSERT INTO " + table + " VALUES (2)");
            assertThat(pgPid(b)).isEqualTo(pidA);
            assertThatThrownBy(() -> {
                ps.setInt(1, 1);
                ps.executeUpdate();
            }).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> st.execute("INSERT INTO " + table + " VALUES (3)")).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> st.getConnection().createStatement()).isInstanceOf(SQLException.class);
            b.rollback();
        }
        assertThat(pgRows()).isZero();
    }

    @Test
    void statementOfAClosedHandleDoesNotRunInBsTransactionOnMariaDb() throws SQLException {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        Connection a = ds.getConnection();
        PreparedStatement ps = a.prepareStatement(insertOf(TestDatabase.MARIADB, 1));
        a.close();
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            run(b, insertOf(TestDatabase.MARIADB, 2));
            assertThatThrownBy(ps::executeUpdate).isInstanceOf(SQLException.class);
            assertThatThrownBy(ps::executeQuery).isInstanceOf(SQLException.class);
            b.rollback();
        }
        assertThat(mariaRows()).isZero();
    }

    /**
     * A result set of A kept after A's handle closed: reading it must not read B's data, and its
     * statement must not run again.
     */
    @Test
    void resultSetOfAClosedHandleDoesNotReachBOnPostgres() throws SQLException {
        pgTable();
        LoomPoolDataSource ds = pg(1);
        Connection a = ds.getConnection();
        PreparedStatement ps = a.prepareStatement("SELECT id FROM " + table);
        ResultSet rs = ps.executeQuery();
        a.close();
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            run(b, "INSERT INTO " + table + " VALUES (7)");
            assertThatThrownBy(rs::next).isInstanceOf(SQLException.class);
            assertThatThrownBy(ps::executeQuery).isInstanceOf(SQLException.class);
            b.rollback();
        }
        assertThat(pgRows()).isZero();
    }

    private void insertLob(Connection c, Db db) throws SQLException {
        if (db == Db.POSTGRES) {
            run(c, "INSERT INTO " + table + "_lob VALUES (1, lo_from_bytea(0, decode(repeat('00', 100000), 'hex')))");
        } else {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + "_lob VALUES (1, ?)")) {
                ps.setBytes(1, new byte[100_000]);
                ps.executeUpdate();
            }
        }
    }

    private static final class ForkJoinPoolHolder {
        static final java.util.concurrent.Executor POOL = java.util.concurrent.ForkJoinPool.commonPool();
    }

    /** A stream handed to another thread, read after the handle closed; free() and close() twice; the pool still lends the same connection. */
    @ParameterizedTest
    @EnumSource(Db.class)
    void aLentStreamReadOnAnotherThreadAfterCloseRefusesAndLeaksNoRun(Db db) throws Exception {
        if (db == Db.POSTGRES) {
            pgAdmin("CREATE TABLE " + table + "_lob (id int PRIMARY KEY, b oid)");
            pgCleanup.add("DROP TABLE IF EXISTS " + table + "_lob");
        } else {
            mariaAdmin("CREATE TABLE " + table + "_lob (id int PRIMARY KEY, b longblob)");
            mariaCleanup.add("DROP TABLE IF EXISTS " + table + "_lob");
        }
        LoomPoolDataSource ds = loom(db, 1);
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        long id;
        try (Connection c = ds.getConnection()) {
            id = db == Db.POSTGRES ? pgPid(c) : myId(c);
            c.setAutoCommit(false);
            insertLob(c, db);
            c.commit();
        }
        assertTimeoutPreemptively(NO_HANG, () -> {
            InputStream in;
            Blob blob;
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT b FROM " + table + "_lob")) {
                    rs.next();
                    blob = rs.getBlob(1);
                    in = blob.getBinaryStream();
                    // another thread reads a part while the handle is open
                    int n = CompletableFuture.supplyAsync(() -> {
                        try {
                            return in.read(new byte[1000]);
                        } catch (IOException e) {
                            throw new RuntimeException(e);
                        }
                    }, ForkJoinPoolHolder.POOL).get();
                    assertThat(n).isPositive();
                }
                in.close();
                in.close(); // twice
                blob.free();
                blob.free(); // twice
                c.commit();
            }
            // after the handle closed: refused, not hung, and nothing counted forever
            assertThatThrownBy(() -> blob.length()).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> in.read()).isInstanceOf(IOException.class);
            blob.free(); // does nothing once the binding ended
            try (Connection c = ds.getConnection()) {
                assertThat(db == Db.POSTGRES ? pgPid(c) : myId(c)).as("the same live connection, not retired").isEqualTo(id);
            }
        });
    }

    /** pgjdbc's large-object stream throws in the middle of a read (the transaction aborted under it): the run ends, the connection is lent again. */
    @Test
    void aDriverErrorInTheMiddleOfALobReadLeaksNoRun() throws Exception {
        pgAdmin("CREATE TABLE " + table + "_lob (id int PRIMARY KEY, b oid)");
        pgCleanup.add("DROP TABLE IF EXISTS " + table + "_lob");
        LoomPoolDataSource ds = pg(1);
        long pid;
        try (Connection c = ds.getConnection()) {
            pid = pgPid(c);
            c.setAutoCommit(false);
            insertLob(c, Db.POSTGRES);
            c.commit();
        }
        assertTimeoutPreemptively(NO_HANG, () -> {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                InputStream in;
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT b FROM " + table + "_lob")) {
                    rs.next();
                    in = rs.getBlob(1).getBinaryStream();
                }
                assertThat(in.read()).isZero();
                assertThatThrownBy(() -> run(c, "SELECT 1/0")).isInstanceOf(SQLException.class);
                // the transaction is aborted: the driver's next large-object read fails in the middle
                try {
                    in.readAllBytes(); // pgjdbc's buffer may answer the first reads; a later one asks the server
                } catch (IOException expected) {
                    // the driver's failure in the middle of the read: the run must end with it
                }
                c.rollback();
                try {
                    in.close(); // pgjdbc: the descriptor ended with the transaction, as without the pool
                } catch (IOException asThePlainDriver) {
                    // the run of the failing close must end too
                }
            }
            try (Connection c = ds.getConnection()) {
                assertThat(pgPid(c)).as("the same live connection, not retired").isEqualTo(pid);
            }
        });
    }
}
