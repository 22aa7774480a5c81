package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.WritePathProbes.*;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One handle used by two threads on the write path on PostgreSQL (DESIGN.md §4, "Per-statement
 * values" and "One state machine, every thread"): keyed INSERTs that let the connection go on one
 * thread neither hand the handle another borrower's id nor break a statement being made on the other.
 */
class PostgresKeyedInsertsOnASharedHandleTest extends OnRealDatabases {

    /**
     * One handle on two threads: one inserts with its keys asked (each INSERT lets the connection go
     * and ends the handle's STATEMENT_VALUE pin), the other runs INSERT; lastval(); borrowers on
     * other handles insert meanwhile. Every id the handle reads is one of its own rows (either
     * thread's: they share a session on the plain driver too), or the read is refused.
     */
    @Test
    void aHandleSharedByTwoThreadsReadsNoOtherBorrowersIdWhileItsKeyedInsertsLetGo() throws Exception {
        pgWritePathObjects();
        LoomPoolDataSource ds = pg(2);
        ds.setAcquireTimeout(Duration.ofSeconds(30));
        Queue<Long> read = new ConcurrentLinkedQueue<>();
        Queue<String> failed = new ConcurrentLinkedQueue<>();
        ExecutorService threads = Executors.newCachedThreadPool(virtualThreads());
        try (Connection a = ds.getConnection()) {
            List<Future<?>> all = new ArrayList<>();
            all.add(threads.submit(() -> rounds(failed, i -> keyed(a, "INSERT INTO " + table + " (v) VALUES (" + (1000 + i) + ")"))));
            all.add(threads.submit(() -> rounds(failed, i -> {
                run(a, "INSERT INTO " + table + " (v) VALUES (" + (2000 + i) + ")");
                String id = answer(c -> str(c, "SELECT lastval()"), a);
                if (!id.equals(REFUSED)) {
                    read.add(Long.parseLong(id));
                }
            })));
            for (int b = 0; b < 2; b++) {
                int borrower = b;
                all.add(threads.submit(() -> rounds(failed, i -> {
                    try (Connection c = ds.getConnection()) {
                        run(c, "INSERT INTO " + table + " (v) VALUES (" + (5000 + 100 * borrower + i) + ")");
                        num(c, "SELECT lastval()");
                    }
                })));
            }
            for (Future<?> f : all) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(failed).isEmpty();
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            for (long id : read) {
                assertThat(num(admin, "SELECT v FROM " + table + " WHERE id = " + id)).as("the row of id %d", id).isLessThan(5000);
            }
        }
    }

    /** One round of a thread. */
    @FunctionalInterface
    interface Turn {
        void run(int i) throws SQLException;
    }

    /**
     * Runs 40 rounds; the first failure ends them, except the spurious HY010 of a statement made
     * while another thread's statement let the connection go
     * ({@link #aStatementMadeOnOneThreadSurvivesAStatementOfTheSameHandleEndingOnAnother}): that round is skipped.
     */
    private static Void rounds(Queue<String> failed, Turn round) {
        for (int i = 0; i < 40; i++) {
            try {
                round.run(i);
            } catch (SQLException e) {
                if (!"HY010".equals(e.getSQLState())) {
                    failed.add(e.toString());
                    return null;
                }
            } catch (RuntimeException e) {
                failed.add(e.toString());
                return null;
            }
        }
        return null;
    }

    /**
     * A statement made on one thread while a statement of the same handle ends on another, which
     * lets the connection go (nothing pins it): the handle was never closed, and the plain driver's
     * shared connection makes the statement. Held at the driver's prepareStatement, after the bind.
     */
    @Test
    void aStatementMadeOnOneThreadSurvivesAStatementOfTheSameHandleEndingOnAnother() throws Exception {
        pgWritePathObjects();
        LoomPoolDataSource ds = gated(pg(1));
        try (Connection a = ds.getConnection()) {
            run(a, "SELECT 1"); // the pool has started
            GateDriver.Held prepare = GateDriver.hold("prepareStatement",
                    () -> keyed(a, "INSERT INTO " + table + " (v) VALUES (1)"));
            assertThat(num(a, "SELECT 2")).isEqualTo(2); // the same handle, on this thread: its statement ends
            prepare.release();
            assertThat(prepare.failure().get()).as(prepare.outcome()).isNull();
        }
        assertThat(pgIds()).isEqualTo("1");
    }

    /** Virtual threads where the JDK has them (by reflection: these sources compile for Java 17), else platform threads. */
    private static ThreadFactory virtualThreads() {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException e) {
            return Executors.defaultThreadFactory();
        }
    }
}
