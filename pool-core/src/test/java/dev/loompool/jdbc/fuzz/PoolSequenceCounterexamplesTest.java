package dev.loompool.jdbc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every counterexample the pool's sequence fuzzer ({@link PoolSequenceFuzzTest}) found, shrunk and
 * kept by name, in the form of the pin-semantics suite: borrower A did this on a pool of one
 * connection; what does borrower B see (beside a plain connection with the same settings, from
 * open to close: what a fresh session is); what did A commit? Each runs on every target, so that
 * a case found on one driver holds on the others too.
 */
class PoolSequenceCounterexamplesTest {

    private final String table = "wt38d_cx_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final List<LoomPoolDataSource> pools = new ArrayList<>();
    private SeqTarget made;

    @AfterEach
    void cleanup() throws SQLException {
        pools.forEach(LoomPoolDataSource::close);
        if (made != null) {
            try (Connection c = made.database.admin(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    /**
     * Found on MariaDB Connector/J (seed 38, its first 40 sequences): the pool's default isolation
     * was set at connect; A left session state, so the returned connection was reset
     * (COM_RESET_CONNECTION), which puts the server's isolation back to its global default. The
     * driver keeps the level it last set as its own, and the pool's {@code setTransactionIsolation}
     * of the default afterwards was not sent: B ran at REPEATABLE READ where the pool says
     * SERIALIZABLE (and B's {@code getTransactionIsolation()} said so too).
     */
    @ParameterizedTest
    @EnumSource(SeqTarget.class)
    void thePoolsDefaultIsolationIsPutBackAfterTheResetOfTheSessionALeftState(SeqTarget target) throws SQLException {
        makeTable(target);
        LoomPoolDataSource ds = pool(target);
        ds.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
        try (Connection a = ds.getConnection(); Statement s = a.createStatement()) {
            s.execute(target.postgres() ? "SET application_name = 'wt38d_a'" : "SET @fz_a = 1"); // session state: reset at close
            s.execute("INSERT INTO " + table + " VALUES (1, 'a')");
        }
        String fresh;
        try (Connection plain = target.plain()) {
            plain.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            fresh = isolation(plain, target);
        }
        try (Connection b = ds.getConnection()) {
            assertThat(isolation(b, target)).as("B's session").isEqualTo(fresh);
            assertThat(b.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
        }
        assertThat(committed(target)).containsExactly("1|a");
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private LoomPoolDataSource pool(SeqTarget target) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(target.url());
        ds.setPoolName("wt38d-cx");
        ds.setMinSize(1);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(3));
        pools.add(ds);
        return ds;
    }

    private void makeTable(SeqTarget target) throws SQLException {
        made = target;
        try (Connection c = target.database.admin(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id int, v varchar(200))" + (target.postgres() ? "" : " ENGINE=InnoDB"));
        }
    }

    /** The isolation the session's transactions get, as the server says. */
    private static String isolation(Connection c, SeqTarget target) throws SQLException {
        return answer(c, target.postgres() ? "SHOW default_transaction_isolation" : "SELECT @@tx_isolation");
    }

    private static String answer(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** What is committed in the table, as another session sees it: "id|v" by id. */
    private List<String> committed(SeqTarget target) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = target.database.admin(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, v FROM " + table + " ORDER BY id, v")) {
            while (rs.next()) {
                rows.add(rs.getString(1) + "|" + rs.getString(2));
            }
        }
        return rows;
    }
}
