package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * From a review attack (issue 26): what the reset leaves. {@code dblink_connect} pins and the returned
 * connection is reset with DISCARD ALL, which does not close dblink's named connections (they
 * live until dblink_disconnect or the end of the backend). B, the next borrower, then holds A's
 * authenticated remote session, and A's remote transaction. The plain driver's fresh session has
 * none. Runs in a database of its own, so that the extension is not installed in {@code test}.
 */
class PostgresDblinkResetTest extends OnRealDatabases {

    @Test
    void aDblinkConnectionTheLastBorrowerOpenedIsNotTheNextBorrowers() throws SQLException {
        String db = "atk1_dblink_" + tag;
        pgAdmin("CREATE DATABASE " + db);
        pgCleanup.add("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
        String url = TestDatabase.POSTGRES.url().replace("/test?", "/" + db + "?");
        try (Connection c = DriverManager.getConnection(url)) {
            run(c, "CREATE EXTENSION dblink");
            run(c, "CREATE TABLE t (v text)");
        }
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(url);
        ds.setPoolName("hostile-dblink");
        ds.setMinSize(0);
        ds.setMaxSize(1);
        dataSources.add(ds);
        try (Connection a = ds.getConnection()) {
            run(a, "SELECT dblink_connect('remote', 'dbname=" + db + " user=postgres host=127.0.0.1')");
            run(a, "SELECT dblink_exec('remote', 'BEGIN')");
            run(a, "SELECT dblink_exec('remote', 'INSERT INTO t VALUES (''A, not committed'')')");
        } // A leaves: its remote transaction was never committed
        try (Connection b = ds.getConnection()) {
            assertThat(str(b, "SELECT dblink_get_connections()::text")).as("B's session's dblink connections").isNull();
        }
    }

    @Test
    void aRemoteTransactionTheLastBorrowerAbandonedIsNeverCommittedByTheNextBorrower() throws SQLException {
        String db = "atk1_dblink2_" + tag;
        pgAdmin("CREATE DATABASE " + db);
        pgCleanup.add("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
        String url = TestDatabase.POSTGRES.url().replace("/test?", "/" + db + "?");
        try (Connection c = DriverManager.getConnection(url)) {
            run(c, "CREATE EXTENSION dblink");
            run(c, "CREATE TABLE t (v text)");
        }
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(url);
        ds.setPoolName("hostile-dblink");
        ds.setMinSize(0);
        ds.setMaxSize(1);
        dataSources.add(ds);
        try (Connection a = ds.getConnection()) {
            run(a, "SELECT dblink_connect('remote', 'dbname=" + db + " user=postgres host=127.0.0.1')");
            run(a, "SELECT dblink_exec('remote', 'BEGIN')");
            run(a, "SELECT dblink_exec('remote', 'INSERT INTO t VALUES (''A, not committed'')')");
        }
        try (Connection b = ds.getConnection()) {
            // B's own remote work, on the name it always uses: on a fresh session this connects
            try {
                run(b, "SELECT dblink_connect('remote', 'dbname=" + db + " user=postgres host=127.0.0.1')");
            } catch (SQLException duplicate) {
                // "duplicate connection name": B carries on with the connection it finds
            }
            run(b, "SELECT dblink_exec('remote', 'INSERT INTO t VALUES (''B'')')");
            run(b, "SELECT dblink_exec('remote', 'COMMIT')");
            run(b, "SELECT dblink_disconnect('remote')");
        }
        try (Connection c = DriverManager.getConnection(url)) {
            assertThat(str(c, "SELECT string_agg(v, ',' ORDER BY v) FROM t")).as("committed rows").isEqualTo("B");
        }
    }
}
