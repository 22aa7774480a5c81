package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Driver objects that outlive their handle (issue 26, item 6) on a real PostgreSQL: LOBs and
 * metadata kept after the handle closed refuse instead of reaching the next borrower's session
 * (maxSize 1: B gets A's backend), and arrays no longer cost the pool its connection.
 */
class PostgresLentObjectsTest {

    private final String name = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String table = "lent_" + name;
    private final List<LoomPoolDataSource> dss = new ArrayList<>();

    LoomPoolDataSource ds(int max) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.POSTGRES.url() + "&ApplicationName=lent_" + name);
        ds.setPoolName("lent");
        ds.setMinSize(0);
        ds.setMaxSize(max);
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        dss.add(ds);
        return ds;
    }

    @BeforeEach
    void create() throws SQLException {
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, pet text NOT NULL)");
            st.execute("INSERT INTO " + table + " VALUES (1, 'cat'), (2, 'dog'), (3, 'eel')");
        }
    }

    @AfterEach
    void drop() throws SQLException {
        dss.forEach(LoomPoolDataSource::close);
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            // a connection the pool failed to take back (the old code's, under a kept LOB) would hold the table
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'lent_" + name + "'");
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    static long single(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static long backend(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * A large object A made and wrote through pgjdbc's blob in its transaction (pgjdbc keeps the
     * descriptor it opened, 0); A then commits. pgjdbc has no createBlob(): a blob comes from a result set.
     */
    private static Blob blobOfA(Connection a) throws SQLException {
        a.setAutoCommit(false);
        long oid = single(a, "SELECT lo_from_bytea(0, 'AAAA'::bytea)");
        Blob blob;
        try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery("SELECT " + oid + "::oid")) {
            rs.next();
            blob = rs.getBlob(1);
        }
        blob.setBytes(1, "aaaa".getBytes(StandardCharsets.US_ASCII));
        a.commit();
        return blob;
    }

    /** B opens a large object of its own in its transaction: pgjdbc's descriptor 0 again, now B's. */
    private static long largeObjectOfB(Connection b) throws SQLException {
        b.setAutoCommit(false);
        long oid = single(b, "SELECT lo_from_bytea(0, 'BBBB'::bytea)");
        single(b, "SELECT lo_open(" + oid + ", 393216)"); // INV_READ | INV_WRITE: descriptor 0 of B's transaction
        return oid;
    }

    @Test
    void aBlobKeptAfterItsHandleClosedCannotReadOrOverwriteTheNextBorrowersLargeObject() throws Exception {
        LoomPoolDataSource ds = ds(1);
        Connection a = ds.getConnection();
        Blob late = blobOfA(a);
        InputStream lateStream = late.getBinaryStream();
        a.close();

        long bOid;
        try (Connection b = ds.getConnection()) {
            bOid = largeObjectOfB(b);
            assertThatThrownBy(() -> late.getBytes(1, 4)).as("A's blob must not read B's large object")
                    .isInstanceOf(SQLException.class).hasMessageContaining("pool 'lent'").hasMessageContaining("Blob");
            assertThatThrownBy(() -> late.setBytes(1, "XXXX".getBytes(StandardCharsets.US_ASCII)))
                    .as("nor write into it").isInstanceOf(SQLException.class);
            assertThatThrownBy(late::getBinaryStream).isInstanceOf(SQLException.class);
            assertThatThrownBy(lateStream::read).as("nor its stream").isInstanceOf(java.io.IOException.class)
                    .hasMessageContaining("pool 'lent'");
            lateStream.close(); // closes nothing of B's
            late.free(); // nothing to free any more, and nothing of B's is closed
            b.commit();
        }
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT convert_from(lo_get(" + bOid + "), 'UTF8')")) {
            rs.next();
            assertThat(rs.getString(1)).as("B's large object is what B wrote").isEqualTo("BBBB");
            st.execute("SELECT lo_unlink(" + bOid + ")");
        }
    }

    @Test
    void theSameBlobKeptAfterThePlainDriversConnectionClosedIsRefusedByTheDriver() throws Exception {
        Connection a = DriverManager.getConnection(TestDatabase.POSTGRES.url());
        Blob late = blobOfA(a);
        a.close();
        assertThatThrownBy(() -> late.getBytes(1, 4)).isInstanceOf(SQLException.class)
                .hasMessageContaining("This connection has been closed");
    }

    @Test
    void aBlobReadAndWrittenWhileItsHandleIsOpenWorksAndTheConnectionIsReusedAfterClose() throws Exception {
        LoomPoolDataSource ds = ds(1);
        long aBackend;
        try (Connection a = ds.getConnection()) {
            aBackend = backend(a);
            a.setAutoCommit(false);
            long oid = single(a, "SELECT lo_from_bytea(0, 'AAAA'::bytea)");
            Blob blob;
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery("SELECT " + oid + "::oid")) {
                rs.next();
                blob = rs.getBlob(1);
            }
            try (PreparedStatement ps = a.prepareStatement("SELECT length(lo_get(?))")) {
                ps.setBlob(1, blob); // goes into the driver as the driver's own blob: its oid
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertThat(rs.getInt(1)).isEqualTo(4);
                }
            }
            try (InputStream in = blob.getBinaryStream()) {
                assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("AAAA");
            }
            a.rollback();
        }
        try (Connection b = ds.getConnection()) {
            assertThat(backend(b)).as("reset and reused, not reconnected").isEqualTo(aBackend);
        }
    }

    /**
     * pgjdbc's result-set metadata runs catalog SQL when first asked isNullable: used after A's
     * handle closed, it ran in B's session (here inside B's failed transaction).
     */
    @Test
    void resultSetMetaDataUsedAfterItsHandleClosedNeverRunsSqlInsideTheNextBorrowersTransaction() throws Exception {
        LoomPoolDataSource ds = ds(1);
        ResultSetMetaData late;
        try (Connection a = ds.getConnection(); Statement st = a.createStatement();
                ResultSet rs = st.executeQuery("SELECT id FROM " + table)) {
            late = rs.getMetaData();
        }
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            b.createStatement().execute("INSERT INTO " + table + " VALUES (10, 'b')");
            assertThatThrownBy(() -> late.isNullable(1)).as("never in B's session")
                    .isInstanceOf(SQLException.class).hasMessageContaining("pool 'lent'")
                    .hasMessageContaining("ResultSetMetaData");
            b.commit();
        }
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            assertThat(single(c, "SELECT count(*) FROM " + table)).as("B's transaction committed").isEqualTo(4);
        }
    }

    /**
     * What A keeps does not keep A's dropped handle from the reclaimer, and refuses once the
     * reclaimer gave the connection to B (the old code ran the metadata's SQL in B's session).
     */
    @Test
    void metadataAndABlobKeptFromAHandleDroppedWithoutCloseLetItBeReclaimedThenRefuse() throws Exception {
        LoomPoolDataSource ds = ds(1);
        Object[] kept = keepFromADroppedHandle(ds);
        ReclaimerWaits.gcUntil("the dropped handle is reclaimed", () -> ds.getReclaimedConnections() == 1);
        ResultSetMetaData md = (ResultSetMetaData) kept[0];
        Blob blob = (Blob) kept[1];
        try (Connection b = ds.getConnection()) {
            b.setAutoCommit(false);
            b.createStatement().execute("INSERT INTO " + table + " VALUES (10, 'b')");
            assertThatThrownBy(() -> md.isNullable(1)).isInstanceOf(SQLException.class).hasMessageContaining("pool 'lent'");
            assertThatThrownBy(() -> blob.getBytes(1, 4)).isInstanceOf(SQLException.class).hasMessageContaining("pool 'lent'");
            b.commit();
        }
        try (Connection c = TestDatabase.POSTGRES.admin()) {
            assertThat(single(c, "SELECT count(*) FROM " + table)).isEqualTo(4);
        }
    }

    private Object[] keepFromADroppedHandle(LoomPoolDataSource ds) throws SQLException {
        Connection a = ds.getConnection();
        a.setAutoCommit(false);
        ResultSetMetaData md;
        Blob blob;
        try (Statement st = a.createStatement();
                ResultSet rs = st.executeQuery("SELECT id, lo_from_bytea(0, 'AAAA'::bytea)::oid FROM " + table)) {
            rs.next();
            md = rs.getMetaData();
            blob = rs.getBlob(2);
            assertThat(blob.getBytes(1, 4)).hasSize(4);
        }
        return new Object[] {md, blob}; // the handle is dropped without close, inside its transaction
    }

    /**
     * Metadata pins no longer than its statement (issue 28): read after its result set closed, it
     * answers while the handle keeps the connection (its result set's, here: the statement is
     * open), and refuses once the statement closed too and the connection went back.
     */
    @Test
    void resultSetMetaDataReadAfterItsResultSetClosedAnswersWhileItsStatementIsOpenThenRefuses() throws Exception {
        LoomPoolDataSource ds = ds(1);
        try (Connection a = ds.getConnection()) {
            ResultSetMetaData md;
            try (Statement st = a.createStatement()) {
                try (ResultSet rs = st.executeQuery("SELECT id FROM " + table)) {
                    md = rs.getMetaData();
                }
                assertThat(md.isNullable(1)).isEqualTo(ResultSetMetaData.columnNoNulls);
                assertThat(md.getColumnName(1)).isEqualTo("id");
            }
            assertThatThrownBy(() -> md.getColumnName(1)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("no longer holds");
        }
    }

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
