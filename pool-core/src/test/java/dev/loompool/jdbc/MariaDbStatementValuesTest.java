package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Per-statement values and the connection's identity on the real MariaDB (issue 26, items 1 and
 * 2): {@code LAST_INSERT_ID()}, the {@code LAST_INSERT_ID(expr)} sequence idiom,
 * {@code FOUND_ROWS()} after {@code SQL_CALC_FOUND_ROWS}, {@code SHOW WARNINGS}, and
 * {@code CONNECTION_ID()} with {@code KILL QUERY}.
 */
class MariaDbStatementValuesTest extends OnRealDatabases {

    private void seqTable() throws SQLException {
        mariaAdmin("CREATE TABLE " + table + "_seq (id bigint NOT NULL) ENGINE=InnoDB");
        mariaAdmin("INSERT INTO " + table + "_seq VALUES (0)");
        mariaCleanup.add("DROP TABLE IF EXISTS " + table + "_seq");
    }

    @Test
    void anInsertThenLastInsertIdReadsTheHandlesOwnIdWhenAnotherBorrowerInsertsInBetween() throws SQLException {
        mariaLastInsertIdIsTheHandlesOwn();
    }

    @Test
    void theSequenceIdiomGivesTwoBorrowersDistinctIds() throws SQLException {
        seqTable();
        LoomPoolDataSource ds = maria(2);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            run(a, "UPDATE " + table + "_seq SET id = LAST_INSERT_ID(id + 1)");
            run(b, "UPDATE " + table + "_seq SET id = LAST_INSERT_ID(id + 1)");
            long idA = num(a, "SELECT LAST_INSERT_ID()");
            long idB = num(b, "SELECT LAST_INSERT_ID()");
            assertThat(List.of(idA, idB)).containsExactlyInAnyOrder(1L, 2L);
        }
    }

    @ParameterizedTest(name = "maxSize {0}")
    @ValueSource(ints = {1, 2, 3})
    void manyBorrowersUsingTheSequenceIdiomNeverShareAnId(int maxSize) throws Exception {
        seqTable();
        LoomPoolDataSource ds = maria(maxSize);
        Set<Long> ids = ConcurrentHashMap.newKeySet();
        assertThat(borrowersAtOnce(ds, (c, thread, round, wrong) -> {
            run(c, "UPDATE " + table + "_seq SET id = LAST_INSERT_ID(id + 1)");
            long id = num(c, "SELECT LAST_INSERT_ID()");
            if (!ids.add(id)) {
                wrong.add("id " + id + " given twice");
            }
        })).isEmpty();
        assertThat(ids).hasSize(BORROWERS * ROUNDS);
    }

    @Test
    void foundRowsAfterSqlCalcFoundRowsIsTheBorrowersOwnCount() throws SQLException {
        mariaTable();
        mariaAdmin("INSERT INTO " + table + " (v) VALUES (1), (2), (3), (4), (5)");
        LoomPoolDataSource ds = maria(2);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            num(a, "SELECT SQL_CALC_FOUND_ROWS v FROM " + table + " LIMIT 1");
            num(b, "SELECT SQL_CALC_FOUND_ROWS v FROM " + table + " WHERE v < 3 LIMIT 1");
            assertThat(num(a, "SELECT FOUND_ROWS()")).as("A's count").isEqualTo(5);
            assertThat(num(b, "SELECT FOUND_ROWS()")).as("B's count").isEqualTo(2);
        }
    }

    /** A left a warning (division by zero) and closed; B's first statement asks for warnings. */
    @Test
    void theNextBorrowersFirstShowWarningsNeverShowsThePreviousBorrowersWarning() throws SQLException {
        LoomPoolDataSource ds = maria(1);
        long idA;
        try (Connection a = ds.getConnection(); Statement st = a.createStatement()) {
            idA = myId(a);
            st.execute("SELECT 1/0 AS secret_" + tag);
            try (ResultSet w = st.executeQuery("SHOW WARNINGS")) {
                assertThat(w.next()).as("A sees its own warning, as on the plain driver").isTrue();
                assertThat(w.getString("Message")).containsIgnoringCase("division by 0");
            }
            st.execute("SELECT 1/0 AS secret_" + tag); // and leaves one
        }
        try (Connection b = ds.getConnection(); Statement st = b.createStatement()) {
            assertThatThrownBy(() -> st.executeQuery("SHOW WARNINGS")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("SHOW WARNINGS");
            assertThatThrownBy(() -> st.executeQuery("SELECT @@warning_count")).isInstanceOf(SQLException.class);
            assertThat(myId(b)).as("B has A's connection").isEqualTo(idA);
        }
    }

    @Test
    void theNextBorrowersLastInsertIdIsRefusedNotThePreviousBorrowersId() throws SQLException {
        mariaTable();
        LoomPoolDataSource ds = maria(1);
        try (Connection a = ds.getConnection()) {
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
        }
        try (Connection b = ds.getConnection(); Statement st = b.createStatement()) {
            st.execute("SELECT 1");
            assertThatThrownBy(() -> st.executeQuery("SELECT LAST_INSERT_ID()")).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> st.executeQuery("SELECT @@identity")).isInstanceOf(SQLException.class);
        }
    }

    /**
     * A reads CONNECTION_ID() to kill its own query later; B runs a long query on the same pool.
     * A's KILL QUERY must not interrupt B's: A's handle keeps its own connection.
     */
    @Test
    void aBorrowerWhoReadItsConnectionIdCanOnlyKillItsOwnQuery() throws Exception {
        LoomPoolDataSource ds = maria(2);
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            long idA = myId(a);
            // SLEEP answers 0 when it ran to its end, 1 if interrupted
            bRunsOnWhileAStopsItsOwnQuery(TestDatabase.MARIADB, a, b, "SELECT SLEEP(1.5) /* " + tag + " */",
                    "SLEEP(1.5) /* " + tag, 0, "KILL QUERY " + idA);
        }
    }
}
