package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The relaxed array pin (DESIGN.md §4, "Objects that outlive their handle refuse"; issue 28) on
 * MariaDB's server: MariaDB Connector/J makes only float arrays (for VECTOR), which hold no
 * connection and refuse once the pin ends at the next statement; MySQL Connector/J makes none.
 */
class MariaDbArrayPinEndsAtTheNextStatementTest {

    private LoomPoolDataSource ds;

    @AfterEach
    void tearDown() {
        if (ds != null) {
            ds.close();
        }
    }

    private LoomPoolDataSource pool(String url) {
        ds = new LoomPoolDataSource();
        ds.setJdbcUrl(url);
        ds.setPoolName("atkarr-" + UUID.randomUUID().toString().substring(0, 8));
        ds.setMinSize(1);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofMillis(500));
        return ds;
    }

    @Test
    void aFloatArrayMariaDbMadePinsUntilTheNextStatementThenRefuses() throws Exception {
        try (Connection a = pool(TestDatabase.MARIADB.url()).getConnection()) {
            Array v = a.createArrayOf("float", new Float[] {1f, 2f});
            assertThat(a.unwrap(LoomConnection.class).pinReasons()).containsExactly(PinReason.EXPLICIT);
            try (Statement st = a.createStatement()) {
                st.execute("SELECT 1");
            }
            assertThat(a.unwrap(LoomConnection.class).isBound()).isFalse();
            assertThatThrownBy(v::getArray).isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("HY010"));
        }
    }

    /** A driver that makes no arrays: the refusal reaches the caller and nothing stays pinned. */
    @Test
    void mysqlConnectorJRefusingCreateArrayOfLeavesNothingPinned() throws Exception {
        String url = TestDatabase.MARIADB.url().replace("jdbc:mariadb:", "jdbc:mysql:");
        try (Connection a = pool(url).getConnection()) {
            assertThatThrownBy(() -> a.createArrayOf("float", new Float[] {1f}))
                    .isInstanceOf(SQLFeatureNotSupportedException.class);
            assertThat(a.unwrap(LoomConnection.class).pinReasons()).isEmpty();
            assertThat(a.unwrap(LoomConnection.class).isBound()).isFalse();
        }
    }
}
