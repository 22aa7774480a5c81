package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;

/**
 * Borrower scenarios with A's handle spread over threads (DESIGN.md §4 "One state machine, every
 * thread"), on the real databases and a pool of one: the helper threads, the slow statements a
 * watchdog comes in the middle of, what A committed, B's clean session, the pool free again, and
 * HikariCP as the reference pool.
 */
final class ThreadedBorrowerScenarios {

    private ThreadedBorrowerScenarios() {
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Runs {@code r} on a new thread {@code name}; its first failure goes to {@code failure}. */
    static Thread other(String name, ThrowingRunnable r, AtomicReference<Throwable> failure) {
        Thread t = new Thread(() -> {
            try {
                r.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, name);
        t.start();
        return t;
    }





    static String none(TestDatabase db) {
        return db == TestDatabase.POSTGRES ? "null" : "none";
    }

    /** The session's open transaction, as the server says: null (PostgreSQL) or "none" (MariaDB) when none. */
    static String inTx(TestDatabase db) {
        return db == TestDatabase.POSTGRES ? "SELECT txid_current_if_assigned()::text"
                : "SELECT coalesce((SELECT trx_id FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()), 'none')";
    }

    static String noTx(TestDatabase db) {
        return db == TestDatabase.POSTGRES ? null : "none";
    }

    static String sleep(TestDatabase db, int seconds, String marker) {
        return (db == TestDatabase.POSTGRES ? "SELECT pg_sleep(" : "SELECT SLEEP(") + seconds + ") AS " + marker;
    }


    /** A second borrower gets the pool's connection and uses it within 2 s. */
    static void freeWithinTwoSeconds(DataSource ds) throws Exception {
        long seven = CompletableFuture.supplyAsync(() -> {
            try (Connection c = ds.getConnection()) {
                return num(c, "SELECT 7");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, r -> new Thread(r, "second-borrower").start()).get(2, TimeUnit.SECONDS);
        assertThat(seven).isEqualTo(7);
    }

    /** B's session as a fresh one has it: no transaction, autocommit, the default isolation. */
    static void cleanSession(TestDatabase db, Connection b) throws SQLException {
        assertThat(str(b, inTx(db))).as("B's session has no transaction open").isEqualTo(noTx(db));
        assertThat(b.getAutoCommit()).as("B's autocommit").isTrue();
        if (db == TestDatabase.POSTGRES) {
            assertThat(str(b, "SHOW transaction_isolation")).as("B's isolation").isEqualTo("read committed");
            assertThat(str(b, "SHOW search_path")).as("B's search_path").isEqualTo("\"$user\", public");
        } else {
            assertThat(str(b, "SELECT @@session.tx_isolation")).as("B's isolation").isEqualTo("REPEATABLE-READ");
            assertThat(str(b, "SELECT @@session.autocommit")).as("B's autocommit on the server").isEqualTo("1");
        }
    }

    static String sleep(TestDatabase db, int seconds) {
        return db == TestDatabase.POSTGRES ? "SELECT pg_sleep(" + seconds + ")" : "SELECT SLEEP(" + seconds + ")";
    }

    static String sleepMarker(TestDatabase db, int seconds) {
        return db == TestDatabase.POSTGRES ? "pg_sleep(" + seconds + ")" : "SLEEP(" + seconds + ")";
    }
}
