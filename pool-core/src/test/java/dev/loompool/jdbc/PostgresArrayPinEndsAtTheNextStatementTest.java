package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relaxed array pin on PostgreSQL (DESIGN.md §4, "Objects that outlive their handle refuse";
 * issue 28): an array {@code createArrayOf} made pins only until its handle's next statement runs,
 * and after that it refuses. Borrower A makes it; nothing of it reaches borrower C, who gets A's
 * connection next.
 */
class PostgresArrayPinEndsAtTheNextStatementTest {

    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String type = "atkarr_mood_" + suffix;
    private final String table = "atkarr_t_" + suffix;
    private LoomPoolDataSource ds;

    @BeforeEach
    void setUp() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("CREATE TYPE " + type + " AS ENUM ('sad', 'ok', 'happy')");
            st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, moods " + type + "[])");
            st.execute("INSERT INTO " + table + " VALUES (1, NULL)");
        }
    }

    @AfterEach
    void tearDown() throws SQLException {
        if (ds != null) {
            ds.close();
        }
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
            st.execute("DROP TYPE IF EXISTS " + type);
        }
    }

    private LoomPoolDataSource pool(int max) {
        ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.POSTGRES.url());
        ds.setPoolName("atkarr-" + suffix);
        ds.setMinSize(max);
        ds.setMaxSize(max);
        ds.setAcquireTimeout(Duration.ofMillis(500));
        return ds;
    }

    private static long pid(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT pid FROM pg_stat_activity WHERE client_port = inet_client_port() AND client_addr = inet_client_addr()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Borrower A makes an array; borrower B (another handle of the same thread, as a
     * REQUIRES_NEW transaction has) puts it into its updatable result set, where pgjdbc keeps the
     * driver's array until {@code updateRow}. A's next statement ends the array's pin and A's
     * connection goes back; C borrows it and opens a transaction. B's {@code updateRow} then has
     * pgjdbc ask the array's connection, C's, for its element type: B's call runs inside C's
     * transaction. The check of the array's binding ran at {@code updateArray}, not when the driver
     * used it.
     */
    @Test
    void anArrayKeptByAnotherHandlesUpdatableResultSetNeverReachesTheNextBorrowersTransaction() throws Exception {
        LoomPoolDataSource pool = pool(2);
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            Array moods = a.createArrayOf(type, new Object[] {"ok", "happy"});
            try (Statement st = b.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_UPDATABLE);
                    ResultSet rs = st.executeQuery("SELECT id, moods FROM " + table)) {
                assertThat(rs.next()).isTrue();
                rs.updateArray(2, moods); // checked here: A still holds the array's connection
                long aPid = pid(a); // A's next statement: the array's pin ends, and A lets its connection go
                assertThat(a.unwrap(LoomConnection.class).isBound()).as("A let its connection go").isFalse();
                try (Connection c = pool.getConnection(); Statement cs = c.createStatement()) {
                    assertThat(pid(c)).as("C has A's connection").isEqualTo(aPid);
                    c.setAutoCommit(false);
                    try {
                        cs.execute("SELECT 1/0");
                    } catch (SQLException expected) {
                        // C's own transaction is aborted: any statement run in it now fails with 25P02
                    }
                    SQLException thrown = null;
                    try {
                        rs.updateRow();
                    } catch (SQLException e) {
                        thrown = e;
                    }
                    // The plain driver runs pgjdbc's type lookup on the array's connection here: in
                    // C's transaction (25P02). The pool must refuse the array before it gets there.
                    assertThat(thrown == null ? null : thrown.getSQLState())
                            .as("B's updateRow must not run in C's transaction (25P02 says it did): "
                                    + (thrown == null ? "" : thrown.getMessage()))
                            .isEqualTo("HY010");
                    c.rollback();
                }
            }
        }
    }

    /** While its binding holds, an array goes into an updatable result set and is written as the plain driver writes it. */
    @Test
    void anArrayInAnUpdatableResultSetIsWrittenWhileItsBindingHolds() throws Exception {
        LoomPoolDataSource pool = pool(1);
        try (Connection a = pool.getConnection()) {
            Array moods = a.createArrayOf(type, new Object[] {"ok", "happy"});
            try (Statement st = a.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_UPDATABLE);
                    ResultSet rs = st.executeQuery("SELECT id, moods FROM " + table)) {
                assertThat(rs.next()).isTrue();
                rs.updateArray(2, moods);
                rs.updateRow();
            }
            try (Statement st = a.createStatement();
                    ResultSet rs = st.executeQuery("SELECT moods::text FROM " + table + " WHERE id = 1")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("{ok,happy}");
            }
        }
    }
}
