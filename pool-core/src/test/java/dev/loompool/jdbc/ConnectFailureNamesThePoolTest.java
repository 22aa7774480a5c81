package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 38, item 2: a connect that the driver's own timeout ends first (pgjdbc's socketTimeout,
 * MariaDB's connectTimeout, shorter than acquireTimeout), against a port that completes the TCP
 * handshake and never answers. The caller's exception names the pool and its counts in its
 * message, as the pool's other errors do, and keeps what the plain driver says: its SQLState, its
 * vendor code, its kind (the java.sql types exception translators read) and, as the cause, the
 * driver's own exception. The plain driver, asked the same URL on a connection of its own, is the
 * reference.
 */
class ConnectFailureNamesThePoolTest {

    /** Far beyond the driver's 1 s timeout and the pool's 10 s acquire timeout: no hang. */
    private static final Duration NO_HANG = Duration.ofSeconds(30);

    private ServerSocket blackHole;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void listen() throws Exception {
        blackHole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress()); // accepts nothing: the backlog answers
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        blackHole.close();
    }

    @Test
    void postgresSocketTimeoutEndsTheConnectFirst() {
        theDriversTimeoutNamesThePool("jdbc:postgresql://127.0.0.1:" + blackHole.getLocalPort()
                + "/test?sslmode=disable&socketTimeout=1&loginTimeout=20", "pg"); // the socket timeout ends it, alone
    }

    @Test
    void mariaDbConnectTimeoutEndsTheConnectFirst() {
        theDriversTimeoutNamesThePool("jdbc:mariadb://127.0.0.1:" + blackHole.getLocalPort()
                + "/test?connectTimeout=1000", "maria");
    }

    private void theDriversTimeoutNamesThePool(String url, String name) {
        SQLException plain = assertTimeoutPreemptively(NO_HANG, () -> catchThrowableOfType(SQLException.class, () -> {
            try (Connection c = DriverManager.getConnection(url, "nobody", "")) {
                c.isValid(1);
            }
        }));
        assertThat((Throwable) plain).as("the plain driver's own connect fails by its timeout").isNotNull();

        LoomPoolDataSource ds = new LoomPoolDataSource();
        toClose.add(ds);
        ds.setJdbcUrl(url);
        ds.setUsername("nobody");
        ds.setPoolName("wt38c-named-" + name);
        ds.setMinSize(0);
        ds.setMaxSize(2);
        ds.setAcquireTimeout(Duration.ofSeconds(10)); // longer than the driver's own timeout: the driver ends it
        SQLException e = assertTimeoutPreemptively(NO_HANG, () -> catchThrowableOfType(SQLException.class, () -> {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) { // binds: the connect is now
                st.execute("SELECT 1");
            }
        }));
        assertThat((Throwable) e).isNotNull();
        assertThat(e.getMessage()).as("the caller's message names the pool and its counts")
                .startsWith("pool '" + ds.getPoolName() + "': could not open a connection (total=")
                .contains(plain.getMessage());
        assertThat(e.getSQLState()).as("the driver's SQLState").isEqualTo(plain.getSQLState());
        assertThat(e.getErrorCode()).as("the driver's vendor code").isEqualTo(plain.getErrorCode());
        for (Class<?> kind = plain.getClass(); kind != SQLException.class; kind = kind.getSuperclass()) {
            if (kind.getPackageName().equals("java.sql")) {
                assertThat((Throwable) e).as("the driver's kind, as exception translators read it").isInstanceOf(kind);
            }
        }
        assertThat(e.getCause()).as("the driver's own exception, as the cause").isInstanceOf(plain.getClass())
                .hasMessage(plain.getMessage());
    }
}
