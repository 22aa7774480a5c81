package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.ThreadedBorrowerScenarios.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A savepoint rollback held before the driver while a watchdog closes the handle (DESIGN.md §4 "One
 * state machine, every thread", "Transaction pin"): it never reaches the next borrower's transaction.
 * HikariCP is the reference.
 */
class SavepointRollbackOvertakenByAWatchdogCloseTest extends OnRealDatabases {

    // =================================================================================================
    // Savepoint calls are transaction calls too: overtaken by a watchdog's close
    // =================================================================================================

    /**
     * A (autocommit off) inserts 1, sets savepoint "s1", inserts 3; thread owner-A calls
     * {@code a.rollback(sp)}, stopped by the gate before the driver (a thread preempted between
     * loompool's bind() and the driver's lock behaves the same). The watchdog (this thread) closes A:
     * the release check rolls A back and lends the connection. B begins a transaction, sets its own
     * savepoint "s1" and inserts 2. A's call goes on: {@code ROLLBACK TO SAVEPOINT s1} runs in B's
     * transaction and silently undoes B's insert; B commits nothing.
     *
     * <p>Plain driver: A's rollback(sp) after close throws "connection closed"; B's own connection
     * commits 2. loompool protects commit(), rollback() and the setters ({@code PhysicalConnection.enter},
     * a connection whose binding ended under such a call is retired), but not the savepoint calls.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void rollbackToSavepointOvertakenByAWatchdogCloseNeverReachesBsTransaction(TestDatabase db) throws Exception {
        table(db);
        LoomPoolDataSource ds = gated(one(db));
        String bSaw = savepointRollbackOvertakenByClose(db, ds);
        assertThat(bSaw).as("B inserted 2 after its savepoint s1 and committed; A's rollback(sp) came after A's close")
                .isEqualTo("committed=2, B's commit: ok");
        assertThat(ds.getOpenHandles()).isZero();
        freeWithinTwoSeconds(ds);
    }

    /**
     * The same race through HikariCP (the gate in front of the same driver): the reference. What
     * HikariCP does is recorded, not judged: it has no guard for a call under way at close either.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void hikariReferenceRollbackToSavepointOvertakenByAWatchdogClose(TestDatabase db) throws Exception {
        table(db);
        HikariDataSource ds = hikari(GateDriver.PREFIX + db.url() + (db == TestDatabase.MARIADB ? "&allowMultiQueries=true" : ""),
                GateDriver.class.getName());
        String bSaw = savepointRollbackOvertakenByClose(db, ds);
        System.out.println("PROBE hikari " + db + " savepoint race: " + bSaw);
        assertThat(bSaw).isNotNull();
    }

    /** @return "committed=…, B's commit: …" after the race */
    private String savepointRollbackOvertakenByClose(TestDatabase db, DataSource ds) throws Exception {
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        run(a, insertOf(db, 1));
        Savepoint sp = a.setSavepoint("s1");
        run(a, insertOf(db, 3));
        GateDriver.Held held = GateDriver.hold("rollback", () -> a.rollback(sp));
        a.close(); // the watchdog
        String bCommit;
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            b.setSavepoint("s1");
            run(b, insertOf(db, 2));
            held.release();
            try {
                b.commit();
                bCommit = "ok";
            } catch (SQLException e) {
                bCommit = "threw " + e.getMessage();
                b.rollback();
            }
        }
        assertThat(held.failure().get()).as("A's rollback(sp): only an SQLException (%s)", held.outcome())
                .matches(t -> t == null || t instanceof SQLException);
        return "committed=" + committed(db) + ", B's commit: " + bCommit;
    }
}
