package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Per-statement values and the connection's identity on the real PostgreSQL (issue 26, items 1
 * and 2): borrower A runs an INSERT whose id comes from a serial default and reads it with
 * {@code lastval()} or {@code currval(…)} on the same handle outside a transaction; borrower B
 * works on the same pool in between. A must read its own id, as on the plain driver, and B must
 * never read A's.
 */
class PostgresStatementValuesTest extends OnRealDatabases {

    private void serialTable() throws SQLException {
        pgAdmin("CREATE TABLE " + table + " (id serial PRIMARY KEY, v int)");
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
    }

    /** The id the admin session sees for the row with value {@code v}. */
    private long idOf(long v) throws SQLException {
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            return num(admin, "SELECT id FROM " + table + " WHERE v = " + v);
        }
    }

    @Test
    void anInsertThenLastvalReadsTheHandlesOwnIdWhenAnotherBorrowerInsertsInBetween() throws SQLException {
        serialTable();
        LoomPoolDataSource ds = pg(2);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            run(b, "INSERT INTO " + table + " (v) VALUES (2)"); // the old code lent B the connection A let go of
            assertThat(num(a, "SELECT lastval()")).as("A's own id").isEqualTo(idOf(1));
            assertThat(num(b, "SELECT currval('" + table + "_id_seq')")).as("B's own id").isEqualTo(idOf(2));
        }
    }

    @ParameterizedTest(name = "maxSize {0}")
    @ValueSource(ints = {1, 2, 3})
    void manyBorrowersInsertingThenReadingLastvalOrCurrvalEachReadTheirOwnId(int maxSize) throws Exception {
        serialTable();
        LoomPoolDataSource ds = pg(maxSize);
        assertThat(borrowersAtOnce(ds, (c, thread, round, wrong) -> {
            long v = thread * 1000L + round;
            run(c, "INSERT INTO " + table + " (v) VALUES (" + v + ")");
            String read = round % 2 == 0 ? "SELECT lastval()" : "SELECT currval('" + table + "_id_seq')";
            long id = num(c, read);
            long mine = num(c, "SELECT v FROM " + table + " WHERE id = " + id);
            if (mine != v) {
                wrong.add(read + " gave the id of " + mine + ", not of " + v);
            }
        })).isEmpty();
        assertThat(pgRows()).isEqualTo((long) BORROWERS * ROUNDS);
    }

    @Test
    void theNextBorrowersFirstLastvalNeverReadsThePreviousBorrowersId() throws SQLException {
        serialTable();
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        }
        try (Connection b = ds.getConnection()) {
            // the plain driver's fresh session: ERROR 55000 lastval is not yet defined in this session
            assertThatThrownBy(() -> num(b, "SELECT lastval()")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("pool 'hostile-postgres'").hasMessageContaining("getGeneratedKeys()");
            assertThatThrownBy(() -> num(b, "SELECT currval('" + table + "_id_seq')")).isInstanceOf(SQLException.class);
        }
    }

    @Test
    void aBorrowerThatRanOtherSqlFirstStillCannotReadThePreviousBorrowersSequenceValue() throws SQLException {
        serialTable();
        LoomPoolDataSource ds = pg(1);
        long pidA;
        try (Connection a = ds.getConnection()) {
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            pidA = pgPid(a);
        }
        try (Connection b = ds.getConnection(); Statement st = b.createStatement()) {
            assertThat(pgPid(b)).isEqualTo(pidA);
            st.execute("SELECT 1");
            assertThatThrownBy(() -> st.executeQuery("SELECT lastval()")).isInstanceOf(SQLException.class);
        }
    }

    @Test
    void insertReturningAndGeneratedKeysLeaveNothingToPinAndNeedNothing() throws SQLException {
        serialTable();
        LoomPoolDataSource ds = pg(1);
        try (Connection a = ds.getConnection()) {
            assertThat(num(a, "INSERT INTO " + table + " (v) VALUES (1) RETURNING id")).isEqualTo(idOf(1));
            assertThat(a.unwrap(LoomConnection.class).isBound()).isFalse();
        }
    }

    /**
     * A reads its backend's pid to cancel its own work later; B runs a long query on the same pool.
     * A's pg_cancel_backend must not cancel B's query: A's handle keeps its own backend.
     */
    @Test
    void aBorrowerWhoReadItsBackendPidCanOnlyCancelItsOwnBackend() throws Exception {
        LoomPoolDataSource ds = pg(2);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            long pidA = pgPid(a);
            bRunsOnWhileAStopsItsOwnQuery(TestDatabase.POSTGRES, a, b, "SELECT 7 FROM pg_sleep(1.5) /* " + tag + " */",
                    "pg_sleep(1.5) /* " + tag, 7, "SELECT pg_cancel_backend(" + pidA + ")");
        }
    }
}
