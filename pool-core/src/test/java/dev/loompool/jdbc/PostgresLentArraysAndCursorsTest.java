package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Arrays and refcursors that outlive their handle (DESIGN.md §4, "Objects that outlive their handle
 * refuse"; issue 26, item 6) on a real PostgreSQL: an array no longer costs the pool its
 * connection (it is reset and reused), a fetched array answers from memory after its handle
 * closed, an array the handle created refuses then, and a refcursor's result set is the statement's.
 */
class PostgresLentArraysAndCursorsTest extends PostgresLentObjectsFixture {

    /** Hibernate's batch fetch on PostgreSQL: {@code … where id = any (?)} with an array it created. */
    @Test
    void anArrayCreatedAndBoundAsAParameterWorksAndTheConnectionIsReusedAfterClose() throws Exception {
        LoomPoolDataSource ds = ds(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = backend(a);
            Array ids = a.createArrayOf("int4", new Object[] {1, 3});
            try (PreparedStatement ps = a.prepareStatement("SELECT pet FROM " + table + " WHERE id = any (?) ORDER BY id")) {
                ps.setArray(1, ids);
                List<String> pets = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        pets.add(rs.getString(1));
                    }
                }
                assertThat(pets).containsExactly("cat", "eel");
            }
            try (PreparedStatement ps = a.prepareStatement("SELECT count(*) FROM " + table + " WHERE id = any (?)")) {
                ps.setObject(1, ids); // setObject too
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertThat(rs.getInt(1)).isEqualTo(2);
                }
            }
        }
        try (Connection b = ds.getConnection()) {
            assertThat(backend(b)).as("reset and reused, not reconnected").isEqualTo(aBackend);
        }
    }

    @Test
    void fiveArrayQueriesInARowOnAThreeConnectionPoolOpenNoNewServerSession() throws Exception {
        LoomPoolDataSource ds = ds(3);
        Set<Long> backends = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT array[1, 2], pg_backend_pid()")) {
                rs.next();
                Array array = rs.getArray(1);
                assertThat((Object[]) array.getArray()).containsExactly(1, 2);
                backends.add(rs.getLong(2));
            }
        }
        assertThat(backends).as("one backend, reused").hasSize(1);
        try (Connection admin = TestDatabase.POSTGRES.admin()) {
            assertThat(single(admin, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'lent_" + name + "'"))
                    .as("server sessions of this pool").isEqualTo(1);
        }
        assertThat(ds.getPool().stats().total()).isEqualTo(1);
    }

    /** Spring's queryForList: getObject returns the array, the connection closes, the caller reads it later. */
    @Test
    void anArrayFetchedThroughGetObjectStillAnswersAfterItsHandleClosedWithoutTheConnection() throws Exception {
        LoomPoolDataSource ds = ds(1);
        Array array;
        long aBackend;
        try (Connection a = ds.getConnection(); Statement st = a.createStatement();
                ResultSet rs = st.executeQuery("SELECT array[10, 20, 30], pg_backend_pid()")) {
            rs.next();
            array = (Array) rs.getObject(1);
            aBackend = rs.getLong(2);
        }
        assertThat(array.getBaseTypeName()).isEqualTo("int4");
        assertThat((Object[]) array.getArray()).containsExactly(10, 20, 30);
        assertThat((Object[]) array.getArray(2, 2)).containsExactly(20, 30);
        try (ResultSet rows = array.getResultSet()) {
            assertThat(rows.getStatement()).as("no way to the driver's statement or connection").isNull();
            List<String> seen = new ArrayList<>();
            while (rows.next()) {
                seen.add(rows.getLong(1) + "=" + rows.getInt(2));
            }
            assertThat(seen).containsExactly("1=10", "2=20", "3=30");
        }
        try (ResultSet rows = array.getResultSet(2, 1)) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getLong("INDEX")).isEqualTo(2);
            assertThat(rows.getInt("VALUE")).isEqualTo(20);
            assertThat(rows.next()).isFalse();
        }
        try (Connection b = ds.getConnection()) {
            assertThat(backend(b)).as("reused, not reconnected").isEqualTo(aBackend);
        }
    }

    @Test
    void anArraysRowsCarryNullsTextAndNestedArraysAsTheDriversDo() throws Exception {
        LoomPoolDataSource ds = ds(1);
        Array withNull;
        Array texts;
        Array nested;
        try (Connection a = ds.getConnection(); Statement st = a.createStatement();
                ResultSet rs = st.executeQuery("SELECT array[1, NULL, 3], array['a', 'b'], array[[1, 2], [3, 4]]")) {
            rs.next();
            withNull = rs.getArray(1);
            texts = rs.getArray(2);
            nested = rs.getArray(3);
        }
        List<Object> values = new ArrayList<>();
        try (ResultSet rows = withNull.getResultSet()) {
            while (rows.next()) {
                values.add(rows.getObject(2));
            }
        }
        assertThat(values).containsExactly(1, null, 3);
        try (ResultSet rows = texts.getResultSet()) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString("VALUE")).isEqualTo("a");
        }
        assertThat(((Object[][]) nested.getArray())[1]).containsExactly(3, 4);
        try (ResultSet rows = nested.getResultSet()) {
            assertThat(rows.next()).isTrue();
            assertThat((Object[]) rows.getObject(2)).containsExactly(1, 2);
        }
    }

    @Test
    void anArraysResultSetInsideTheHandleHandsOutNoDriverConnectionAndTheConnectionIsReused() throws Exception {
        LoomPoolDataSource ds = ds(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = backend(a);
            Array created = a.createArrayOf("text", new Object[] {"x", "y"});
            try (ResultSet rows = created.getResultSet()) {
                assertThat(rows.getStatement()).isNull();
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(2)).isEqualTo("x");
            }
            assertThat(a.unwrap(LoomConnection.class).pinReasons()).as("it pins while the handle is open")
                    .containsExactly(PinReason.EXPLICIT);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(backend(b)).as("an array no longer retires the connection").isEqualTo(aBackend);
        }
    }

    /** A refcursor's result set from getObject is wrapped as the statement's: the connection is reused. */
    @Test
    void aRefcursorsResultSetIsTheStatementsAndTheConnectionIsReused() throws Exception {
        String function = "cur_" + name;
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("CREATE FUNCTION " + function + "() RETURNS refcursor AS $$ DECLARE c refcursor; "
                    + "BEGIN OPEN c FOR SELECT pet FROM " + table + " ORDER BY id; RETURN c; END $$ LANGUAGE plpgsql");
        }
        try {
            LoomPoolDataSource ds = ds(1);
            long aBackend;
            try (Connection a = ds.getConnection()) {
                aBackend = backend(a);
                a.setAutoCommit(false);
                try (java.sql.CallableStatement cs = a.prepareCall("{? = call " + function + "()}")) {
                    cs.registerOutParameter(1, java.sql.Types.OTHER);
                    cs.execute();
                    try (ResultSet rs = (ResultSet) cs.getObject(1)) {
                        assertThat(rs.getStatement()).as("the pool's statement, not the driver's").isSameAs(cs);
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getString(1)).isEqualTo("cat");
                    }
                }
                a.commit();
            }
            try (Connection b = ds.getConnection()) {
                assertThat(backend(b)).as("reset and reused, not closed").isEqualTo(aBackend);
            }
        } finally {
            try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
                st.execute("DROP FUNCTION IF EXISTS " + function + "()");
            }
        }
    }

    @Test
    void anArrayTheHandleCreatedRefusesOnceTheHandleClosed() throws Exception {
        LoomPoolDataSource ds = ds(1);
        Array late;
        try (Connection a = ds.getConnection()) {
            late = a.createArrayOf("int4", new Object[] {1});
        }
        assertThatThrownBy(late::getArray).isInstanceOf(SQLException.class).hasMessageContaining("pool 'lent'")
                .hasMessageContaining("Array");
    }
}
