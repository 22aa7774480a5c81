package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.ManualClockAccess;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The PostgreSQL function table follows changes to the catalog (DESIGN.md §4, "Classifying SQL: an
 * allowlist"; issue 27): when the pool reads it again, and what a statement classified with an old
 * table does. A function that was stable is made volatile (it sets the search_path); A calls it;
 * which search_path does B get on A's backend?
 *
 * <p>The pools run on a manual clock, so that "every minute" passes only when a test says so.
 */
@Timeout(120) // the manual clock never ends an acquire: a test that waits for a connection would hang
class PostgresFunctionTableFollowsChangesTest extends OnRealDatabases {

    private final String schema = "loompool_fta_" + tag;
    private final String f = schema + ".f_" + tag + "()"; // a name no other test has: any volatile overload anywhere counts
    private final ManualClockAccess clock = new ManualClockAccess();

    private void stableFunction() throws SQLException {
        pgAdmin("CREATE SCHEMA " + schema);
        pgCleanup.add("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        pgAdmin("CREATE FUNCTION " + f + " RETURNS text STABLE LANGUAGE sql AS $$ SELECT 'harmless'::text $$");
    }

    /** The same function, now volatile and setting the session's search_path. */
    private String madeVolatile() {
        return "CREATE OR REPLACE FUNCTION " + f + " RETURNS text VOLATILE LANGUAGE sql AS $$"
                + " SELECT set_config('search_path', '" + schema + "', false) $$";
    }

    private LoomPoolDataSource timedPool(int maxSize) {
        LoomPoolDataSource ds = pg(maxSize);
        ds.setClock(clock);
        return ds;
    }

    /** Borrower B, on the only free connection: the search_path A's call left, or the default. */
    private void bGetsTheDefaultSearchPath(LoomPoolDataSource ds) throws SQLException {
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT current_setting('search_path')")).as("B's search_path").doesNotContain(schema);
        }
    }

    /**
     * DDL through the pool inside a transaction: the pool notes the change when the statement runs,
     * and the next connection to come back reads the catalog again. If that is another connection,
     * returning while the transaction is still open, it reads the catalog before the change is
     * committed, and the note is spent: after the commit nothing reads it again until the minute
     * is up, and the volatile function is called as if it were still stable.
     */
    @Test
    void ddlCommittedAfterAnotherConnectionReadTheCatalogIsSeen() throws SQLException {
        stableFunction();
        LoomPoolDataSource ds = timedPool(2);
        try (Connection warm = ds.getConnection()) {
            run(warm, "SELECT " + f); // the pool starts, and reads the table: f is stable
        }
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            run(a, madeVolatile());
            try (Connection other = ds.getConnection()) {
                run(other, "SELECT 1"); // its connection comes back while A's change is not committed
            }
            a.commit();
        }
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            run(holder, "SELECT 1"); // holds one connection: A and B share the other
            try (Connection a = ds.getConnection()) {
                run(a, "SELECT " + f);
                assertThat(a.unwrap(LoomConnection.class).isBound()).as("f is volatile, committed through the pool")
                        .isTrue();
            }
            bGetsTheDefaultSearchPath(ds);
            holder.rollback();
        }
    }

    /**
     * Another client changes the function (a migration on its own connection). The table is read
     * again when a connection comes back after the minute: after the statement that ran with the
     * old table. In a pool that was idle for ten minutes, the first statement still runs with the
     * table of ten minutes ago.
     */
    @Test
    void theFirstStatementAfterTheMinuteUsesAFreshTable() throws SQLException {
        stableFunction();
        LoomPoolDataSource ds = timedPool(1);
        try (Connection warm = ds.getConnection()) {
            run(warm, "SELECT " + f);
            assertThat(warm.unwrap(LoomConnection.class).isBound()).as("stable f lets the connection go").isFalse();
        }
        pgAdmin(madeVolatile());
        clock.advance(Duration.ofMinutes(10));
        try (Connection a = ds.getConnection()) {
            run(a, "SELECT " + f);
        }
        bGetsTheDefaultSearchPath(ds);
    }

    /**
     * A prepared statement keeps the effect it was classified with when it was prepared. An open
     * statement pins its connection, so the call runs there; but once the pool has read the new
     * table (a fresh text calling f pins), a call through a statement prepared before still counts
     * as neutral: nothing marks the session dirty, and when the statement closes the connection goes
     * to the next borrower without a reset.
     */
    @Test
    void aStatementPreparedBeforeTheFunctionChangedPinsOnceTheTableKnows() throws SQLException {
        stableFunction();
        LoomPoolDataSource ds = timedPool(2);
        try (Connection a = ds.getConnection()) {
            try (PreparedStatement ps = a.prepareStatement("SELECT " + f)) {
                ps.executeQuery().close();
                pgAdmin(madeVolatile());
                clock.advance(Duration.ofMinutes(2));
                try (Connection other = ds.getConnection()) {
                    run(other, "SELECT 1"); // its return reads the table again: f is volatile
                }
                try (Connection other = ds.getConnection()) {
                    run(other, "SELECT " + f);
                    assertThat(other.unwrap(LoomConnection.class).isBound()).as("the pool knows f is volatile now")
                            .isTrue();
                }
                try (Connection holder = ds.getConnection()) {
                    holder.setAutoCommit(false);
                    run(holder, "SELECT 1"); // holds the other connection: B gets A's
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                    }
                    ps.close();
                    // f changed the session: A keeps its connection until it closes, like after a SET
                    assertThat(a.unwrap(LoomConnection.class).pinReasons()).as("A called the volatile f").isNotEmpty();
                    holder.rollback();
                }
            }
        }
    }

    /**
     * Read-only work binds to the replica pools, and their connections come back to them: the
     * replica pool reads its own table every minute, but statements are classified with the
     * primary's, which is read again only when a primary connection comes back. A read-heavy
     * application calls the volatile function as stable for as long as no write runs.
     */
    @Test
    void readOnlyWorkOnReplicasGetsAFreshTable() throws SQLException {
        stableFunction();
        LoomPoolDataSource ds = timedPool(1);
        ds.setReplicas(List.of(TestDatabase.POSTGRES.url())); // the primary itself, as its own replica
        try (Connection warm = ds.getConnection()) {
            run(warm, "SELECT " + f); // the primary's table: f is stable
        }
        pgAdmin(madeVolatile());
        clock.advance(Duration.ofMinutes(10));
        for (int i = 0; i < 3; i++) {
            try (Connection reader = ds.getConnection()) {
                reader.setReadOnly(true);
                run(reader, "SELECT 1"); // replica connections come back, after the minute
            }
        }
        try (Connection a = ds.getConnection()) {
            a.setReadOnly(true);
            run(a, "SELECT " + f);
        }
        try (Connection b = ds.getConnection()) {
            b.setReadOnly(true);
            assertThat(str(b, "SELECT current_setting('search_path')")).as("B's search_path on the replica")
                    .doesNotContain(schema);
        }
    }

    /**
     * The table read calls pg_get_viewdef for every view, which takes a share lock on each relation
     * the view reads. DDL through the pool asks for the read at the next return, so a thread that
     * altered a table under a view in its open transaction, and then closes another handle, waits in
     * that close for its own lock: it never commits, and the server sees no deadlock (the wait is
     * in the application). Bounded here only so that the test ends.
     */
    @Test
    void theTableReadDoesNotWaitForALockTheSameThreadHolds() throws Exception {
        pgTable();
        String view = table + "_v";
        pgAdmin("CREATE VIEW " + view + " AS SELECT id FROM " + table);
        pgCleanup.add(0, "DROP VIEW IF EXISTS " + view);
        LoomPoolDataSource ds = timedPool(2);
        try (Connection warm = ds.getConnection()) {
            run(warm, "SELECT 1");
        }
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (Connection migration = ds.getConnection()) {
            migration.setAutoCommit(false);
            run(migration, "ALTER TABLE " + table + " ADD COLUMN note text"); // ACCESS EXCLUSIVE until commit
            Future<?> other = thread.submit(() -> {
                try (Connection c = ds.getConnection()) {
                    run(c, "SELECT 1"); // its connection comes back: the table read is due
                }
                return null;
            });
            try {
                other.get(20, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("closing a second handle waits for the first handle's lock: the table read's"
                        + " pg_get_viewdef is queued behind the open ALTER TABLE", e);
            } finally {
                migration.rollback(); // lets the waiting read go, so the test can end
            }
        } finally {
            thread.shutdown();
            thread.awaitTermination(30, TimeUnit.SECONDS);
        }
    }
}
