package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The JDBC layer against a real MariaDB: its own session state and transaction syntax. */
class MariaDbIntegrationTest {

    private final List<LoomPoolDataSource> dataSources = new ArrayList<>();

    LoomPoolDataSource dataSource(int maxSize) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.MARIADB.url());
        ds.setPoolName("maria-it");
        ds.setMinSize(0);
        ds.setMaxSize(maxSize);
        dataSources.add(ds);
        return ds;
    }

    @AfterEach
    void close() {
        dataSources.forEach(LoomPoolDataSource::close);
    }

    @Test
    void userVariablesAndUseDoNotLeakToTheNextBorrower() throws SQLException {
        try (Connection admin = TestDatabase.MARIADB.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE DATABASE IF NOT EXISTS loompool_other");
        }
        LoomPoolDataSource ds = dataSource(1);
        long id;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SET @leak = 42");
            st.execute("USE loompool_other");
            st.execute("SET SESSION sql_mode = 'ANSI'");
            id = PostgresIntegrationTest.single(c, "SELECT CONNECTION_ID()");
            assertThat(PostgresIntegrationTest.single(c, "SELECT @leak")).isEqualTo(42);
        }
        try (Connection c = ds.getConnection()) {
            assertThat(PostgresIntegrationTest.single(c, "SELECT CONNECTION_ID()")).as("same connection, reset").isEqualTo(id);
            assertThat(PostgresIntegrationTest.text(c, "SELECT COALESCE(@leak, 'none')")).isEqualTo("none");
            assertThat(PostgresIntegrationTest.text(c, "SELECT DATABASE()")).isEqualTo("test");
            assertThat(PostgresIntegrationTest.text(c, "SELECT @@SESSION.sql_mode")).doesNotContain("ANSI_QUOTES");
        }
    }

    @Test
    void setAutocommitZeroPinsUntilCommitAndIsUndoneAfter() throws SQLException {
        LoomPoolDataSource ds = dataSource(2);
        try (Connection c = ds.getConnection()) {
            try (Statement st = c.createStatement()) {
                st.execute("SET autocommit = 0");
            }
            long id = PostgresIntegrationTest.single(c, "SELECT CONNECTION_ID()");
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.TRANSACTION);
            assertThat(PostgresIntegrationTest.single(c, "SELECT CONNECTION_ID()")).isEqualTo(id);
        }
        try (Connection c = ds.getConnection()) {
            assertThat(PostgresIntegrationTest.single(c, "SELECT @@autocommit")).isEqualTo(1);
        }
    }

    @Test
    void aTransactionStaysOnOneConnection() throws SQLException {
        LoomPoolDataSource ds = dataSource(3);
        try (Connection tx = ds.getConnection(); Connection other = ds.getConnection()) {
            tx.setAutoCommit(false);
            long id = PostgresIntegrationTest.single(tx, "SELECT CONNECTION_ID()");
            assertThat(PostgresIntegrationTest.single(other, "SELECT CONNECTION_ID()")).isNotEqualTo(id);
            assertThat(PostgresIntegrationTest.single(tx, "SELECT CONNECTION_ID()")).isEqualTo(id);
            tx.commit();
        }
    }

    @Test
    void mysqlConnectorJSessionsAreResetAndTheirTransactionsSeenToo() throws SQLException {
        LoomPoolDataSource ds = dataSource(1);
        ds.setJdbcUrl(TestDatabase.MARIADB.url().replace("jdbc:mariadb:", "jdbc:mysql:"));
        long id;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SET @leak = 42");
            st.execute("SET SESSION sql_mode = 'ANSI'");
            st.execute("START TRANSACTION");
            st.close();
            assertThat(c.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.TRANSACTION, PinReason.SESSION_STATE);
            id = PostgresIntegrationTest.single(c, "SELECT CONNECTION_ID()");
        }
        try (Connection c = ds.getConnection()) {
            assertThat(PostgresIntegrationTest.single(c, "SELECT @@in_transaction")).isZero();
            assertThat(PostgresIntegrationTest.text(c, "SELECT COALESCE(@leak, 'none')")).isEqualTo("none");
            assertThat(PostgresIntegrationTest.text(c, "SELECT @@SESSION.sql_mode")).doesNotContain("ANSI_QUOTES");
            assertThat(ds.getPool().stats().total()).isEqualTo(1);
            assertThat(id).isPositive();
        }
    }

    @Test
    void theDriversPoolOptionIsRefused() {
        LoomPoolDataSource ds = dataSource(2);
        ds.setJdbcUrl(TestDatabase.MARIADB.url() + "&pool=true");
        assertThatThrownBy(ds::start).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pool=true").hasMessageContaining("loompool is the pool");
    }
}
