package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Blob;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the code paths changed on the day of issue 38's fuzzer fixes (wt38y): lent objects
 * as runs of the handle, setReadOnly/setTransactionIsolation reaching the driver, FOUND_ROWS()
 * refused without SQL_CALC_FOUND_ROWS, connect failures naming the pool. Each beside the plain
 * driver (a connection of its own) and, where it says something, HikariCP.
 */
class LentObjectsOfAClosedHandleRefuseTest extends BorrowerScenarios {

    private static final Duration NO_HANG = Duration.ofSeconds(60);

    // ---- FOUND_ROWS() ---------------------------------------------------------------------------

    /**
     * FOUND_ROWS() after a plain SELECT (no SQL_CALC_FOUND_ROWS) inside A's own transaction: the
     * binding cannot change in a transaction, so the count is A's own; the plain driver answers it.
     */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void foundRowsAfterAPlainSelectInsideTheTransactionAnswersAsThePlainDriver(Connector connector) throws SQLException {
        mariaTable();
        mariaAdmin("INSERT INTO " + table + " (v) VALUES (1), (2), (3)");
        String select = "SELECT v FROM " + table + " WHERE v < 3";
        long plain;
        try (Connection c = DriverManager.getConnection(connector.url(null))) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(select)) {
                while (rs.next()) { }
            }
            plain = num(c, "SELECT FOUND_ROWS()");
            c.rollback();
        }
        assertThat(plain).as("the plain driver's count").isEqualTo(2);
        LoomPoolDataSource ds = maria(connector, 1, null);
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery(select)) {
                while (rs.next()) { }
            }
            assertThat(num(a, "SELECT FOUND_ROWS()")).as("the pool's count").isEqualTo(plain);
            a.rollback();
        }
    }

    /** SQL_CALC_FOUND_ROWS, then a SET, then FOUND_ROWS() in the same transaction: the server keeps the count over the SET. */
    @ParameterizedTest
    @EnumSource(Connector.class)
    void foundRowsAfterCalcThenASetInsideTheTransactionAnswersAsThePlainDriver(Connector connector) throws SQLException {
        mariaTable();
        mariaAdmin("INSERT INTO " + table + " (v) VALUES (1), (2), (3), (4)");
        String select = "SELECT SQL_CALC_FOUND_ROWS v FROM " + table + " LIMIT 1";
        long plain;
        try (Connection c = DriverManager.getConnection(connector.url(null))) {
            c.setAutoCommit(false);
            num(c, select);
            run(c, "SET @wt38y_x = 1");
            plain = num(c, "SELECT FOUND_ROWS()");
            c.rollback();
        }
        assertThat(plain).isEqualTo(4);
        LoomPoolDataSource ds = maria(connector, 1, null);
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            num(a, select);
            run(a, "SET @wt38y_x = 1");
            assertThat(num(a, "SELECT FOUND_ROWS()")).isEqualTo(plain);
            a.rollback();
        }
    }

    // ---- Spring's DataSourceTransactionManager, by hand -------------------------------------------

    /**
     * The calls DataSourceUtils.prepareConnectionForTransaction and DataSourceTransactionManager
     * make for {@code @Transactional(readOnly = true, isolation = SERIALIZABLE)}, with a nested
     * savepoint transaction, then the cleanup; the pool must do what the plain driver and HikariCP do.
     */
    private static List<String> springLike(DataSource ds, String probe) throws SQLException {
        List<String> seen = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            c.setReadOnly(true);
            int previous = c.getTransactionIsolation();
            if (previous != Connection.TRANSACTION_SERIALIZABLE) {
                c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            }
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            try (Statement st = c.createStatement()) {
                st.execute("SET TRANSACTION READ ONLY"); // enforceReadOnly (execute: Connector/J refuses executeUpdate when read-only)
            }
            seen.add("probe=" + str(c, probe));
            seen.add("iso-in-tx=" + c.getTransactionIsolation());
            seen.add("ro-in-tx=" + c.isReadOnly());
            Savepoint sp = c.setSavepoint(); // PROPAGATION_NESTED
            seen.add("nested=" + str(c, probe));
            c.releaseSavepoint(sp);
            c.commit();
            if (autoCommit) {
                c.setAutoCommit(true);
            }
            if (previous != Connection.TRANSACTION_SERIALIZABLE) {
                c.setTransactionIsolation(previous);
            }
            c.setReadOnly(false);
            seen.add("iso-after=" + c.getTransactionIsolation());
            seen.add("ro-after=" + c.isReadOnly());
        } catch (SQLException e) {
            seen.add("failed: " + e.getSQLState());
        }
        return seen;
    }

    enum Db { POSTGRES, MARIADB, MYSQL }

    private String url(Db db) {
        return switch (db) {
            case POSTGRES -> TestDatabase.POSTGRES.url();
            case MARIADB -> Connector.MARIADB_CONNECTOR_J.url(null);
            case MYSQL -> Connector.MYSQL_CONNECTOR_J.url(null);
        };
    }

    private LoomPoolDataSource loom(Db db, int size) {
        return db == Db.POSTGRES ? pg(size) : maria(db == Db.MYSQL ? Connector.MYSQL_CONNECTOR_J : Connector.MARIADB_CONNECTOR_J, size, null);
    }

    private static String probe(Db db) {
        return db == Db.POSTGRES ? "SELECT current_setting('transaction_isolation') || '/' || current_setting('transaction_read_only')"
                : "SELECT CONCAT(@@tx_isolation, '/', @@tx_read_only)";
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void springReadOnlySerializableWithANestedSavepointAnswersAsThePlainDriverAndHikari(Db db) throws Exception {
        String url = url(db);
        List<String> plain = springLike(new PlainDataSource(url), probe(db));
        List<String> hikari;
        try (HikariDataSource h = new HikariDataSource()) {
            h.setJdbcUrl(url);
            h.setMaximumPoolSize(1);
            hikari = springLike(h, probe(db));
        }
        LoomPoolDataSource ds = loom(db, 1);
        List<String> pooled = springLike(ds, probe(db));
        List<String> again = springLike(ds, probe(db)); // the second on the same physical connection
        assertThat(plain).as("plain").contains("iso-in-tx=8", "ro-in-tx=true"); // Connector/J then refuses SAVEPOINT read-only (S1009): the pool must too
        assertThat(pooled).as("loompool vs plain (hikari: " + hikari + ")").isEqualTo(plain);
        assertThat(again).as("loompool, second borrower").isEqualTo(plain);
    }

    /** Many TransactionTemplate-like read-only serializable transactions on many threads, pool of 2: none fails. */
    @ParameterizedTest
    @EnumSource(Db.class)
    void springLikeTransactionsOnVirtualThreadsNeverFail(Db db) throws Exception {
        LoomPoolDataSource ds = loom(db, 2);
        List<String> plain = springLike(new PlainDataSource(url(db)), probe(db));
        List<Future<List<String>>> all = new ArrayList<>();
        ExecutorService ex = Executors.newFixedThreadPool(8); // JDK 17 here: platform threads
        try {
            for (int i = 0; i < 40; i++) {
                all.add(ex.submit(() -> springLike(ds, probe(db))));
            }
            for (Future<List<String>> f : all) {
                assertThat(f.get()).isEqualTo(plain);
            }
        } finally {
            ex.shutdownNow();
        }
    }

    // ---- connect failures ---------------------------------------------------------------------------

    private static final String SECRET = "wt38y-Secret-Pw-7731";

    private static SQLException connectFailure(DataSource ds) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 1");
            return null;
        } catch (SQLException e) {
            return e;
        }
    }

    enum Failure { WRONG_PASSWORD, UNKNOWN_DATABASE, REFUSED_PORT }

    private static String withPassword(String url) {
        return url + (url.contains("?") ? "&" : "?") + "password=" + SECRET;
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void connectFailuresKeepWhatTranslatorsReadAndNeverShowThePassword(Db db) throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        for (Failure f : Failure.values()) {
            String base = url(db);
            String url = switch (f) {
                case WRONG_PASSWORD -> withPassword(base);
                case UNKNOWN_DATABASE -> base.replace("/test", "/wt38y_no_such_db");
                case REFUSED_PORT -> base.replaceFirst(":(5432|3306)/", ":" + closedPort + "/");
            };
            if (f == Failure.WRONG_PASSWORD && db != Db.POSTGRES) {
                // root on the local MariaDB may take any password over the socket: skip if the plain driver connects
                try (Connection probe = DriverManager.getConnection(url)) {
                    continue;
                } catch (SQLException expected) {
                    // goes on
                }
            }
            SQLException plain = connectFailure(new PlainDataSource(url));
            if (plain == null) {
                continue; // the server lets it in (trust authentication): nothing to compare
            }
            LoomPoolDataSource ds = loom(db, 1);
            ds.setJdbcUrl(url);
            ds.setPoolName("wt38y-" + db + "-" + f);
            ds.setAcquireTimeout(Duration.ofSeconds(5));
            SQLException pooled = assertTimeoutPreemptively(NO_HANG, () -> connectFailure(ds));
            String what = db + " " + f + ": plain " + plain + " / pooled " + pooled;
            assertThat((Throwable) pooled).as(what).isNotNull();
            assertThat(pooled.getSQLState()).as(what).isEqualTo(plain.getSQLState());
            assertThat(pooled.getErrorCode()).as(what).isEqualTo(plain.getErrorCode());
            for (Class<?> k : List.of(java.sql.SQLNonTransientConnectionException.class, java.sql.SQLTransientConnectionException.class,
                    java.sql.SQLInvalidAuthorizationSpecException.class, java.sql.SQLRecoverableException.class,
                    java.sql.SQLNonTransientException.class, java.sql.SQLTransientException.class,
                    java.sql.SQLSyntaxErrorException.class)) {
                assertThat(k.isInstance(pooled)).as(what + " is " + k.getSimpleName()).isEqualTo(k.isInstance(plain));
            }
            assertThat(pooled.getMessage()).as(what).contains("wt38y-" + db + "-" + f);
            for (Throwable t = pooled; t != null; t = t.getCause()) {
                assertThat(String.valueOf(t.getMessage())).as(what).doesNotContain(SECRET);
                assertThat(String.valueOf(t)).doesNotContain(SECRET);
            }
            ds.close();
        }
    }

    // ---- lent objects as runs -----------------------------------------------------------------------

    private void insertLob(Connection c, Db db) throws SQLException {
        if (db == Db.POSTGRES) {
            run(c, "INSERT INTO " + table + "_lob VALUES (1, lo_from_bytea(0, decode(repeat('00', 100000), 'hex')))");
        } else {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + "_lob VALUES (1, ?)")) {
                ps.setBytes(1, new byte[100_000]);
                ps.executeUpdate();
            }
        }
    }

    private static final class ForkJoinPoolHolder {
        static final java.util.concurrent.Executor POOL = java.util.concurrent.ForkJoinPool.commonPool();
    }

    /** A stream handed to another thread, read after the handle closed; free() and close() twice; the pool still lends the same connection. */
    @ParameterizedTest
    @EnumSource(Db.class)
    void aLentStreamReadOnAnotherThreadAfterCloseRefusesAndLeaksNoRun(Db db) throws Exception {
        if (db == Db.POSTGRES) {
            pgAdmin("CREATE TABLE " + table + "_lob (id int PRIMARY KEY, b oid)");
            pgCleanup.add("DROP TABLE IF EXISTS " + table + "_lob");
        } else {
            mariaAdmin("CREATE TABLE " + table + "_lob (id int PRIMARY KEY, b longblob)");
            mariaCleanup.add("DROP TABLE IF EXISTS " + table + "_lob");
        }
        LoomPoolDataSource ds = loom(db, 1);
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        long id;
        try (Connection c = ds.getConnection()) {
            id = db == Db.POSTGRES ? pgPid(c) : myId(c);
            c.setAutoCommit(false);
            insertLob(c, db);
            c.commit();
        }
        assertTimeoutPreemptively(NO_HANG, () -> {
            InputStream in;
            Blob blob;
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT b FROM " + table + "_lob")) {
                    rs.next();
                    blob = rs.getBlob(1);
                    in = blob.getBinaryStream();
                    // another thread reads a part while the handle is open
                    int n = CompletableFuture.supplyAsync(() -> {
                        try {
                            return in.read(new byte[1000]);
                        } catch (IOException e) {
                            throw new RuntimeException(e);
                        }
                    }, ForkJoinPoolHolder.POOL).get();
                    assertThat(n).isPositive();
                }
                in.close();
                in.close(); // twice
                blob.free();
                blob.free(); // twice
                c.commit();
            }
            // after the handle closed: refused, not hung, and nothing counted forever
            assertThatThrownBy(() -> blob.length()).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> in.read()).isInstanceOf(IOException.class);
            blob.free(); // does nothing once the binding ended
            try (Connection c = ds.getConnection()) {
                assertThat(db == Db.POSTGRES ? pgPid(c) : myId(c)).as("the same live connection, not retired").isEqualTo(id);
            }
        });
    }

    /** pgjdbc's large-object stream throws in the middle of a read (the transaction aborted under it): the run ends, the connection is lent again. */
    @Test
    void aDriverErrorInTheMiddleOfALobReadLeaksNoRun() throws Exception {
        pgAdmin("CREATE TABLE " + table + "_lob (id int PRIMARY KEY, b oid)");
        pgCleanup.add("DROP TABLE IF EXISTS " + table + "_lob");
        LoomPoolDataSource ds = pg(1);
        long pid;
        try (Connection c = ds.getConnection()) {
            pid = pgPid(c);
            c.setAutoCommit(false);
            insertLob(c, Db.POSTGRES);
            c.commit();
        }
        assertTimeoutPreemptively(NO_HANG, () -> {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                InputStream in;
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT b FROM " + table + "_lob")) {
                    rs.next();
                    in = rs.getBlob(1).getBinaryStream();
                }
                assertThat(in.read()).isZero();
                assertThatThrownBy(() -> run(c, "SELECT 1/0")).isInstanceOf(SQLException.class);
                // the transaction is aborted: the driver's next large-object read fails in the middle
                try {
                    in.readAllBytes(); // pgjdbc's buffer may answer the first reads; a later one asks the server
                } catch (IOException expected) {
                    // the driver's failure in the middle of the read: the run must end with it
                }
                c.rollback();
                try {
                    in.close(); // pgjdbc: the descriptor ended with the transaction, as without the pool
                } catch (IOException asThePlainDriver) {
                    // the run of the failing close must end too
                }
            }
            try (Connection c = ds.getConnection()) {
                assertThat(pgPid(c)).as("the same live connection, not retired").isEqualTo(pid);
            }
        });
    }

    /** A DataSource of the plain driver: a connection of its own each time. */
    private record PlainDataSource(String url) implements DataSource {
        @Override public Connection getConnection() throws SQLException { return DriverManager.getConnection(url); }
        @Override public Connection getConnection(String u, String p) throws SQLException { return DriverManager.getConnection(url, u, p); }
        @Override public java.io.PrintWriter getLogWriter() { return null; }
        @Override public void setLogWriter(java.io.PrintWriter out) { }
        @Override public void setLoginTimeout(int seconds) { }
        @Override public int getLoginTimeout() { return 0; }
        @Override public java.util.logging.Logger getParentLogger() { return null; }
        @Override public <T> T unwrap(Class<T> iface) { return null; }
        @Override public boolean isWrapperFor(Class<?> iface) { return false; }
    }
}
