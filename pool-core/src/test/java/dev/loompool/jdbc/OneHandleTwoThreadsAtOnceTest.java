package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * DESIGN.md §4 "One state machine, every thread": one handle used by two threads at the same time
 * (a forked subtask beside its parent), on a pool of one connection. One runs transactions with a
 * savepoint and a schema change, the other inserts in autocommit; the plain driver serves both
 * without an error and commits every row, so the handle must too, and when both are done nothing
 * may keep the connection: no pin, no tracked statement, and the next borrower gets it at once.
 */
class OneHandleTwoThreadsAtOnceTest extends OnRealDatabases {

    private static final int ROUNDS = 400;

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void twoThreadsOnOneHandleAtOnceGetNoErrorAndLeaveNothingBound(TestDatabase db) throws Exception {
        boolean pg = db == TestDatabase.POSTGRES;
        if (pg) {
            pgTable();
        } else {
            mariaTable();
        }
        LoomPoolDataSource ds = pg ? pg(1) : maria(1);
        String insert = "INSERT INTO " + table + (pg ? " VALUES (" : " (v) VALUES (");
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        AtomicInteger inserted = new AtomicInteger();
        try (Connection c = ds.getConnection()) {
            String database = c.getCatalog();
            CountDownLatch go = new CountDownLatch(1);
            Thread tx = new Thread(() -> {
                try {
                    go.await();
                    for (int i = 0; i < ROUNDS; i++) {
                        c.setAutoCommit(false);
                        run(c, insert + (-1 - i) + ")");
                        run(c, "SAVEPOINT s");
                        if (pg) {
                            c.setSchema("public"); // a setter inside the transaction: pgjdbc sends it as SQL
                        } else {
                            c.setCatalog(database); // MariaDB's database, a USE inside the transaction
                        }
                        run(c, "RELEASE SAVEPOINT s");
                        c.commit();
                        c.setAutoCommit(true);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "transactions");
            Thread writer = new Thread(() -> {
                try {
                    go.await();
                    for (int i = 0; i < ROUNDS; i++) {
                        try (Statement st = c.createStatement()) {
                            st.execute(insert + i + ")");
                        }
                        inserted.incrementAndGet();
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "writer");
            tx.start();
            writer.start();
            go.countDown();
            tx.join(120_000);
            writer.join(120_000);
            assertThat(errors).as("what the plain driver never raises here").isEmpty();
            c.setAutoCommit(true); // whatever the last interleaving left: commits the writer's last rows
            LoomConnection h = c.unwrap(LoomConnection.class);
            assertThat(h.pinReasons()).as("nothing pins the handle once both threads are done").isEmpty();
            assertThat(h.isBound()).as("the handle let its connection go").isFalse();
            try (Connection b = ds.getConnection()) {
                // nothing rolls back here: every row of both threads is committed, whichever
                // transaction the writer's inserts fell into
                assertThat(num(b, "SELECT count(*) FROM " + table)).isEqualTo(ROUNDS + inserted.get());
            }
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }
}
