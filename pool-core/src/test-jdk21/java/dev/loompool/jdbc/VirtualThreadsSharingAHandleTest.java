package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.HandleAcrossThreadsTest.boundOnlyForAReason;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A handle shared by threads (DESIGN.md §4 "One state machine, every thread") on virtual threads
 * (JDK 21+), as {@code ForeignCloseDuringAHelpersStatementTest} on platform threads: one handle,
 * created on the caller's thread, used by many virtual threads at once inside one transaction, and
 * closed by a virtual watchdog while some of their statements still run. Borrower B, next on the pool's only connection, must
 * find a clean session, and none of A's uncommitted rows may be committed.
 */
class VirtualThreadsSharingAHandleTest extends OnRealDatabases {

    private static final int WRITERS = 20;

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void virtualThreadsWritingInOneTransactionClosedByAVirtualWatchdogCommitNothing(TestDatabase db) throws Exception {
        boolean pg = db == TestDatabase.POSTGRES;
        if (pg) {
            pgTable();
        } else {
            mariaTable();
        }
        LoomPoolDataSource ds = pool(db, 1, pg ? null : "&allowMultiQueries=true", null);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        String marker = "vt_" + tag;
        for (int i = 1; i <= WRITERS; i++) {
            int v = i;
            writers.add(Thread.ofVirtual().start(() -> {
                try {
                    go.await(10, TimeUnit.SECONDS);
                    // every writer sleeps a little on the server, so that the watchdog comes mid-way
                    run(a, pg ? "INSERT INTO " + table + " SELECT " + v + " AS " + marker + " FROM pg_sleep(0.1)"
                            : "INSERT INTO " + table + " (v) SELECT " + v + " AS " + marker + " FROM (SELECT SLEEP(0.1)) s");
                } catch (SQLException refused) {
                    // the handle closed under it: refused, as the plain driver refuses
                } catch (Throwable e) {
                    unexpected.add(e);
                }
            }));
        }
        go.countDown();
        awaitRunning(db, marker);
        Thread watchdog = Thread.ofVirtual().start(() -> {
            try {
                boundOnlyForAReason(a);
                a.close();
            } catch (Throwable e) {
                unexpected.add(e);
            }
        });
        watchdog.join(30_000);
        for (Thread t : writers) {
            t.join(30_000);
        }
        assertThat(unexpected).as("only SQLExceptions").isEmpty();
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, pg ? "SELECT txid_current_if_assigned()::text"
                    : "SELECT coalesce((SELECT trx_id FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()), 'none')"))
                    .as("B's session has no transaction").isEqualTo(pg ? null : "none");
            assertThat(b.getAutoCommit()).isTrue();
        }
        assertThat(pg ? String.valueOf(pgIds()) : mariaValues()).as("A's rows, never committed").isEqualTo(pg ? "null" : "none");
        assertThat(ds.getOpenHandles()).isZero();
    }
}
