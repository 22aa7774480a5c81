package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.ServerSessions.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code isValid(t)} answers within {@code t} whatever the pool does (DESIGN.md §4 "Errors"): the
 * network frozen, a database that never answers or is not there, the circuit set INACTIVE, a bound
 * handle whose backend was killed. Where it applies, the plain driver is the reference.
 */
class IsValidWithinItsTimeoutTest extends OnRealDatabases {

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeExtras() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    /**
     * The network to the database freezes (a partition). A's handle is unbound; its pool's one
     * idle connection has been idle past 500 ms. isValid(1) must answer within about 1 s, and not
     * say the database is fine.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void isValidOfAnUnboundHandleAnswersWithinItsTimeoutWhenTheNetworkFreezes(TestDatabase db) throws Exception {
        // FINDING (if it fails): the hand-out validation of the idle connection runs with
        // min(validationTimeout, acquireTimeout), not the caller's t.
        FreezingProxy proxy = proxyFor(db);
        LoomPoolDataSource ds = ds(db, 1);
        ds.setJdbcUrl(db.url().replaceFirst("//[^/]+/", "//127.0.0.1:" + proxy.port() + "/")
                + (db == TestDatabase.MARIADB ? "&allowMultiQueries=true" : ""));
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        Connection a = ds.getConnection();
        assertThat(num(a, "SELECT 1")).isEqualTo(1);
        assertThat(a.unwrap(LoomConnection.class).isBound()).isFalse();
        Thread.sleep(800); // idle long enough to be validated when handed out
        proxy.freeze();
        long start = System.nanoTime();
        boolean valid = a.isValid(1);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        proxy.thaw();
        assertThat(took).as("isValid(1) took %d ms (answered %s)", took, valid).isLessThan(2_500);
        assertThat(valid).as("isValid(1) while the database cannot be reached").isFalse();
        a.close();
    }

    /**
     * A database that accepts TCP and never answers (a black hole), before any connection was
     * made: isValid(1) answers within ~1 s, and must not call the handle valid.
     */
    @Test
    void isValidAgainstABlackHoleAnswersFalseWithinItsTimeout() throws Exception {
        // FINDING (if it fails): unboundValid takes a connect that did not complete in time for a
        // busy pool, and serving() counts the connect's own slot as "a connection made".
        ServerSocket hole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        toClose.add(hole);
        toClose.add(() -> accepted.forEach(s -> {
            try {
                s.close();
            } catch (Exception ignored) {
                // closing
            }
        }));
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    accepted.add(hole.accept());
                }
            } catch (Exception e) {
                // closed
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        LoomPoolDataSource ds = ds(TestDatabase.POSTGRES, 1);
        ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + hole.getLocalPort() + "/test?user=postgres");
        ds.setAcquireTimeout(Duration.ofSeconds(3));
        ds.setInitializationFailTimeout(Duration.ofSeconds(-1));
        Connection a;
        try {
            a = ds.getConnection();
        } catch (SQLException e) {
            Assumptions.abort("the pool does not start without a database: " + e);
            return;
        }
        long start = System.nanoTime();
        boolean valid = a.isValid(1);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(took).as("isValid(1) took %d ms", took).isLessThan(2_500);
        assertThat(valid).as("isValid(1) of a pool that never reached its database").isFalse();
        a.close();
    }

    /** A port nobody listens on: isValid(t) answers false at once, for t = 1 and t = 0. */
    @Test
    void isValidWithTheDatabaseUnreachableAnswersFalseAtOnce() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        LoomPoolDataSource ds = ds(TestDatabase.POSTGRES, 1);
        ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres");
        ds.setInitializationFailTimeout(Duration.ofSeconds(-1));
        Connection a;
        try {
            a = ds.getConnection();
        } catch (SQLException e) {
            Assumptions.abort("the pool does not start without a database: " + e);
            return;
        }
        for (int t : new int[] {1, 0}) {
            long start = System.nanoTime();
            boolean valid = a.isValid(t);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(valid).as("isValid(%d)", t).isFalse();
            assertThat(took).as("isValid(%d) took %d ms", t, took).isLessThan(2_500);
        }
        a.close();
    }

    /** The circuit set INACTIVE by hand: isValid answers at once, and a bound handle's connection still answers. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void isValidWithTheCircuitInactiveAnswersAtOnce(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = ds(db, 2);
        try (Connection bound = ds.getConnection(); Connection unbound = ds.getConnection()) {
            bound.setAutoCommit(false);
            run(bound, "SELECT 1");
            ds.getPool().deactivate();
            for (int t : new int[] {1, 0}) {
                long start = System.nanoTime();
                unbound.isValid(t);
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(took).as("unbound isValid(%d) took %d ms", t, took).isLessThan(1_500);
                assertThat(unbound.unwrap(LoomConnection.class).isBound()).isFalse();
            }
            assertThat(bound.isValid(1)).as("its own connection answers").isTrue();
            bound.rollback();
            ds.getPool().activate();
        }
    }

    /**
     * A bound handle in a transaction whose backend was killed: isValid(1) says false within its
     * bound, as the plain driver does, and the handle refuses to commit (the work is lost).
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void isValidOfABoundHandleWhoseBackendWasKilledSaysFalseAndTheTransactionStaysLost(TestDatabase db)
            throws Exception {
        table(db);
        LoomPoolDataSource ds = ds(db, 2);
        try (Connection plain = DriverManager.getConnection(db.url())) {
            plain.setAutoCommit(false);
            long plainId = backend(db, plain);
            kill(db, plainId);
            eventually("the plain session gone", () -> sessionGone(db, plainId));
            assertThat(plain.isValid(1)).as("plain driver").isFalse();
        }
        try (Connection a = ds.getConnection()) {
            a.setAutoCommit(false);
            run(a, insertOf(db, 1));
            long id = backend(db, a);
            kill(db, id);
            eventually("A's session gone", () -> sessionGone(db, id));
            long start = System.nanoTime();
            boolean valid = a.isValid(1);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(valid).isFalse();
            assertThat(took).isLessThan(2_500);
            assertThatThrownBy(() -> run(a, insertOf(db, 2))).as("work lost: the handle refuses to go on")
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(a::commit).isInstanceOf(SQLException.class);
            a.rollback();
            assertThat(tableRows(db)).isIn("null", "none");
        }
    }

    private FreezingProxy proxyFor(TestDatabase db) throws Exception {
        java.util.regex.Matcher hostPort = java.util.regex.Pattern.compile("//[^/:]+:(\\d+)/").matcher(db.url());
        assertThat(hostPort.find()).isTrue();
        FreezingProxy proxy = new FreezingProxy(Integer.parseInt(hostPort.group(1)));
        toClose.add(proxy);
        return proxy;
    }
}
