package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * One handle, two threads, each choosing a different JDBC setting at the same moment on the fresh
 * (unbound) handle: the plain driver keeps both choices, whatever the interleaving; so must the handle.
 */
class SettingsChosenOnTwoThreadsAtOnceTest extends OnRealDatabases {

    private static final int ROUNDS = 2000;

    interface Step {
        void on(Connection c) throws Exception;
    }

    /** Runs a and b on two threads at once on c; returns their errors. */
    static List<Throwable> atOnce(Connection c, Step a, Step b) throws Exception {
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        CyclicBarrier go = new CyclicBarrier(2);
        List<Thread> ts = new ArrayList<>();
        for (Step s : new Step[] {a, b}) {
            Thread t = new Thread(() -> {
                try {
                    go.await();
                    s.on(c);
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            ts.add(t);
            t.start();
        }
        for (Thread t : ts) {
            t.join(60_000);
        }
        return errors;
    }

    @Test
    void pgSchemaAndIsolationChosenAtOnceBothStand() throws Exception {
        String schema = "loompool_s_" + tag;
        pgAdmin("CREATE SCHEMA " + schema);
        pgCleanup.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        // the reference: the plain driver, same schedule
        try (Connection plain = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
            for (int i = 0; i < 20; i++) {
                assertThat(atOnce(plain, c -> c.setSchema(schema),
                        c -> c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE))).isEmpty();
                assertThat(plain.getSchema()).isEqualTo(schema);
                assertThat(plain.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
                plain.setSchema("public");
                plain.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
        }
        LoomPoolDataSource ds = pg(1);
        int lost = 0;
        String first = null;
        for (int i = 0; i < ROUNDS; i++) {
            try (Connection c = ds.getConnection()) {
                assertThat(atOnce(c, x -> x.setSchema(schema),
                        x -> x.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE))).isEmpty();
                String got = c.getSchema() + "/" + c.getTransactionIsolation() + "/"
                        + str(c, "SELECT current_schema()") + "/" + str(c, "SHOW transaction_isolation");
                if (!got.equals(schema + "/" + Connection.TRANSACTION_SERIALIZABLE + "/" + schema + "/serializable")) {
                    lost++;
                    if (first == null) {
                        first = "round " + i + ": " + got;
                    }
                }
            }
        }
        assertThat(lost).as(lost + " of " + ROUNDS + " rounds where one thread's choice was lost (plain driver: none); first: %s", first).isZero();
    }

    @Test
    void mariaReadOnlyAndIsolationChosenAtOnceBothStand() throws Exception {
        try (Connection plain = DriverManager.getConnection(TestDatabase.MARIADB.url())) {
            for (int i = 0; i < 20; i++) {
                assertThat(atOnce(plain, c -> c.setReadOnly(true),
                        c -> c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE))).isEmpty();
                assertThat(plain.isReadOnly()).isTrue();
                assertThat(plain.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
                plain.setReadOnly(false);
                plain.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            }
        }
        LoomPoolDataSource ds = maria(1);
        int lost = 0;
        String first = null;
        for (int i = 0; i < ROUNDS; i++) {
            try (Connection c = ds.getConnection()) {
                assertThat(atOnce(c, x -> x.setReadOnly(true),
                        x -> x.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE))).isEmpty();
                String got = c.isReadOnly() + "/" + c.getTransactionIsolation() + "/"
                        + num(c, "SELECT @@session.tx_read_only") + "/" + str(c, "SELECT @@session.tx_isolation");
                if (!got.equals("true/" + Connection.TRANSACTION_SERIALIZABLE + "/1/SERIALIZABLE")) {
                    lost++;
                    if (first == null) {
                        first = "round " + i + ": " + got;
                    }
                }
            }
        }
        assertThat(lost).as(lost + " of " + ROUNDS + " rounds where one thread's choice was lost (plain driver: none); first: %s", first).isZero();
    }

    /**
     * Thread 1 begins a transaction (setAutoCommit(false)) while thread 2 sets the holdability the
     * handle already has; then the handle inserts a row and rolls back. The plain driver rolls the
     * row back whatever the interleaving: nothing of it is committed.
     */
    @Test
    void pgAutoCommitOffBesideAnotherSetterRollsBack() throws Exception {
        pgTable();
        try (Connection plain = DriverManager.getConnection(TestDatabase.POSTGRES.url())) {
            int h = plain.getHoldability();
            for (int i = 0; i < 20; i++) {
                assertThat(atOnce(plain, c -> c.setAutoCommit(false), c -> c.setHoldability(h))).isEmpty();
                run(plain, "INSERT INTO " + table + " VALUES (" + (100_000 + i) + ")");
                plain.rollback();
                plain.setAutoCommit(true);
            }
        }
        assertThat(pgRows()).isZero();
        LoomPoolDataSource ds = pg(1);
        int holdability;
        try (Connection c = ds.getConnection()) {
            holdability = c.getHoldability();
        }
        int h = holdability;
        List<String> refused = new ArrayList<>();
        for (int i = 0; i < 3 * ROUNDS; i++) {
            try (Connection c = ds.getConnection()) {
                assertThat(atOnce(c, x -> x.setAutoCommit(false), x -> x.setHoldability(h))).isEmpty();
                boolean autoCommit = c.getAutoCommit();
                run(c, "INSERT INTO " + table + " VALUES (" + i + ")");
                try {
                    c.rollback();
                } catch (java.sql.SQLException e) {
                    refused.add("round " + i + " (getAutoCommit()=" + autoCommit + "): " + e.getMessage());
                }
                c.setAutoCommit(true);
            }
        }
        assertThat(pgIds()).as("rows rolled back on the handle but committed (plain driver: none); rollback() refused: %s",
                refused).isNull();
        assertThat(refused).isEmpty();
    }
}
