package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.loompool.jdbc.internal.handle.Internals;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, item 8: a server that accepts TCP connections and never answers (a half-dead host, a
 * stuck proxy). The caller must get its acquire-timeout error instead of hanging, and the pool's own
 * connect must end too, because the pool gives the driver connect and login timeouts. The kernel
 * completes the TCP handshake from the listen backlog: nothing ever accepts or answers.
 */
class BlackHoleTest {

    /** Far beyond the 2 s acquire timeout, well below a hang: the bound is generous on purpose. */
    private static final Duration NO_HANG = Duration.ofSeconds(20);

    private ServerSocket blackHole;
    private int loginTimeoutBefore;
    private LoomPoolDataSource ds;

    @BeforeEach
    void listen() throws Exception {
        blackHole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        loginTimeoutBefore = DriverManager.getLoginTimeout();
        DriverManager.setLoginTimeout(0); // pgjdbc falls back to it: the test needs the driver's own default
    }

    @AfterEach
    void close() throws Exception {
        if (ds != null) {
            ds.close();
        }
        blackHole.close();
        DriverManager.setLoginTimeout(loginTimeoutBefore);
    }

    private LoomPoolDataSource pool(String url) {
        ds = new LoomPoolDataSource();
        ds.setJdbcUrl(url);
        ds.setUsername("nobody");
        ds.setPoolName("black-hole");
        ds.setMinSize(0);
        ds.setMaxSize(2);
        ds.setAcquireTimeout(Duration.ofSeconds(2));
        return ds;
    }

    private void firstQueryFailsAtTheDeadline(String url) {
        LoomPoolDataSource pool = pool(url);
        assertTimeoutPreemptively(NO_HANG, () -> assertThatThrownBy(() -> {
            try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
        }).isInstanceOf(SQLException.class).satisfies(e -> assertThat(
                // the pool's deadline, or the driver's connect/login timeout (the same length) firing first
                e instanceof SQLTransientConnectionException && e.getMessage().contains("'black-hole'")
                        || e instanceof java.sql.SQLTimeoutException
                        || String.valueOf(((SQLException) e).getSQLState()).startsWith("08")).as(e.toString()).isTrue()));
        assertTimeoutPreemptively(NO_HANG, () -> {
            while (pool.getPool().stats().total() > 0) { // the connect itself ends: the driver timed out
                Thread.sleep(50);
            }
        });
        assertThat(pool.getPool().stats().inUse()).isZero();
    }

    @Test
    void postgresWithoutSsl() {
        firstQueryFailsAtTheDeadline("jdbc:postgresql://127.0.0.1:" + blackHole.getLocalPort() + "/test?sslmode=disable");
    }

    @Test
    void postgresWithSslPreferred() {
        firstQueryFailsAtTheDeadline("jdbc:postgresql://127.0.0.1:" + blackHole.getLocalPort() + "/test");
    }

    @Test
    void mariaDb() {
        firstQueryFailsAtTheDeadline("jdbc:mariadb://127.0.0.1:" + blackHole.getLocalPort() + "/test");
    }

    @Test
    void theDriverGetsTimeoutsFromTheAcquireTimeoutUnlessTheUserSetThem() {
        Duration acquire = Duration.ofMillis(2500);
        java.util.Properties pg = Internals.withTimeouts("jdbc:postgresql://h/test", new java.util.Properties(), acquire);
        assertThat(pg.getProperty("connectTimeout")).isEqualTo("3"); // seconds, rounded up
        assertThat(pg.getProperty("loginTimeout")).isEqualTo("3");
        java.util.Properties maria = Internals.withTimeouts("jdbc:mariadb://h/test", new java.util.Properties(), acquire);
        assertThat(maria.getProperty("connectTimeout")).isEqualTo("2500"); // milliseconds
        assertThat(maria.getProperty("socketTimeout")).as("no timeout, said aloud for MariaDB 2.7's reset()").isEqualTo("0");
        java.util.Properties mine = new java.util.Properties();
        mine.setProperty("loginTimeout", "60");
        assertThat(Internals.withTimeouts("jdbc:postgresql://h/test?connectTimeout=9", mine, acquire))
                .as("the user's own settings, in the URL or the properties, are kept")
                .doesNotContainKey("connectTimeout").containsEntry("loginTimeout", "60");
        assertThat(Internals.withTimeouts("jdbc:h2:mem:x", new java.util.Properties(), acquire)).isEmpty();
    }
}
