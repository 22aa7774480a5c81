package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Blob;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * LOBs and metadata that outlive their handle (DESIGN.md §4, "Objects that outlive their handle
 * refuse"; issue 26, item 6) on a real PostgreSQL: kept after the handle closed, or after it was
 * dropped and reclaimed, they refuse instead of reaching the next borrower's session (maxSize 1: B
 * gets A's backend); used while the handle is open they work and the connection is reused.
 */
class PostgresLentLobsAndMetadataTest extends PostgresLentObjectsFixture {

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
}
