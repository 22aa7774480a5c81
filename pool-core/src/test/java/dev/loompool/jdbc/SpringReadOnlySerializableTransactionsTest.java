package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.OnEveryDriver.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Handle state under Spring's DataSourceTransactionManager: the setReadOnly, setTransactionIsolation
 * and setAutoCommit calls it makes for a read-only serializable transaction with a nested savepoint reach
 * the driver; the pool answers as the plain driver (and HikariCP) for one borrower, the next one, and
 * many at once.
 */
class SpringReadOnlySerializableTransactionsTest extends OnRealDatabases {

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
}
