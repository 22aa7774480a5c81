package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.ThreadedBorrowerScenarios.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static dev.loompool.jdbc.HandleAcrossThreadsTest.boundOnlyForAReason;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A watchdog's {@code Statement.cancel()} still on its way while the statement ends and the
 * connection would go on (DESIGN.md §4 "One state machine, every thread", "Release"): the cancel
 * never reaches the next borrower's query. HikariCP is the reference.
 */
class CancelInFlightWhenTheStatementEndsTest extends OnRealDatabases {

    // =================================================================================================
    // Statement.cancel() from a watchdog, in flight while the statement ends and the connection goes on
    // =================================================================================================

    /**
     * A TCP proxy in front of a server: forwards every connection, but once {@link #holdNew()} is
     * called, a new connection waits (unconnected upstream) until {@link #letGo()}. MariaDB
     * Connector/J's {@code Statement.cancel()} opens a new connection to the same host and port to
     * send {@code KILL QUERY <thread id>}: this widens, deterministically, the time that takes.
     */
    static final class HoldingProxy implements AutoCloseable {
        private final ServerSocket server;
        private final int targetPort;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private volatile CountDownLatch hold;
        final CountDownLatch held = new CountDownLatch(1);
        private volatile boolean closed;

        HoldingProxy(int targetPort) throws IOException {
            this.targetPort = targetPort;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "holding-proxy-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        void holdNew() {
            hold = new CountDownLatch(1);
        }

        void letGo() {
            CountDownLatch h = hold;
            if (h != null) {
                h.countDown();
            }
        }

        private void accept() {
            while (!closed) {
                try {
                    Socket client = server.accept();
                    sockets.add(client);
                    CountDownLatch h = hold;
                    Thread t = new Thread(() -> {
                        try {
                            if (h != null) {
                                held.countDown();
                                h.await(30, TimeUnit.SECONDS);
                            }
                            Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                            sockets.add(upstream);
                            pump(client, upstream);
                            pump(upstream, client);
                        } catch (IOException | InterruptedException e) {
                            // closed
                        }
                    }, "holding-proxy-connect");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    if (closed) {
                        return;
                    }
                }
            }
        }

        private void pump(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[8192];
                try {
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    for (int n; (n = in.read(buffer)) >= 0; ) {
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                    to.shutdownOutput();
                } catch (IOException e) {
                    // closed
                }
            }, "holding-proxy-pump");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws IOException {
            closed = true;
            server.close();
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
    }

    private static int mariaPort() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("//[^:/]+:(\\d+)").matcher(TestDatabase.MARIADB.url());
        return m.find() ? Integer.parseInt(m.group(1)) : 3306;
    }

    private static String throughProxy(String url, int port) {
        return url.replaceFirst("//[^/]+/", "//127.0.0.1:" + port + "/");
    }

    /**
     * Thread X runs A's {@code SELECT SLEEP(2)}; the watchdog W calls {@code st.cancel()} while it
     * runs (MariaDB Connector/J then opens a connection of its own to send
     * {@code KILL QUERY <A's thread id>}; the proxy holds that connect). A's sleep ends by itself;
     * X closes its statement, which ends A's only pin: the connection goes back and B borrows it and
     * runs {@code SELECT SLEEP(3)}. W's connect goes on: the KILL QUERY hits B's query, whose SLEEP
     * returns 1 (interrupted) instead of 0.
     *
     * <p>loompool's {@code LogicalStatement.cancel()} checks that the binding still holds, then
     * calls the driver's cancel, which is not counted as a run of the handle: the release that X's
     * close asks for is not deferred until the cancel returns. README: "Never on a connection its
     * handle let go of: pgjdbc and MariaDB cancel by the connection's backend, which may be running
     * the next borrower's query now." Plain driver: the kill can only reach A's own session. HikariCP
     * (reference test below): A's handle keeps the connection after the statement closed; B waits
     * until A closes it, and B's query runs to its end.
     *
     * <p>MySQL Connector/J, tried the same way (not kept as a test): its cancel, resumed after the
     * statement was closed, throws a NullPointerException from the driver ({@code this.session} of
     * the closed statement is null) and sends no KILL, so B's query is not reached; the NPE is the
     * driver's own behaviour on a statement closed under its cancel, and loompool passes it through.
     */
    @Test
    void mariaCancelInFlightWhenTheStatementEndsNeverReachesBsQuery() throws Exception {
        HoldingProxy proxy = new HoldingProxy(mariaPort());
        extras.add(proxy);
        LoomPoolDataSource ds = one(TestDatabase.MARIADB);
        ds.setJdbcUrl(throughProxy(TestDatabase.MARIADB.url(), proxy.port()));
        String bSaw = cancelInFlight(ds, a -> { }, true);
        assertThat(bSaw).as("B's SELECT SLEEP(3) while A's cancel was in flight").isEqualTo("B's sleep=0");
    }

    /** HikariCP, same race: A's handle holds the connection until A closes it (after W's cancel returned). */
    @Test
    void hikariReferenceCancelInFlightWhenTheStatementEnds() throws Exception {
        HoldingProxy proxy = new HoldingProxy(mariaPort());
        extras.add(proxy);
        HikariDataSource ds = hikari(throughProxy(TestDatabase.MARIADB.url(), proxy.port()), null);
        String bSaw = cancelInFlight(ds, a -> { }, false);
        assertThat(bSaw).isEqualTo("B's sleep=0");
    }

    /**
     * The cancel race. {@code bBeforeCancelEnds}: B borrows and runs while W's cancel is held (for
     * loompool, where the statement's close lets go of the connection); else A closes its handle only
     * after W's cancel returned, and B borrows then (HikariCP: the handle holds the connection).
     */
    private String cancelInFlight(DataSource ds, BorrowerScenarios.Use warm, boolean bBeforeCancelEnds) throws Exception {
        try (Connection c = ds.getConnection()) {
            warm.on(c);
            run(c, "SELECT 1"); // the pool's one connection exists, through the proxy
        }
        HoldingProxy proxy = (HoldingProxy) extras.get(0);
        Connection a = ds.getConnection();
        Statement st = a.createStatement();
        String aMarker = "a_sleep_" + tag;
        AtomicReference<Long> aSlept = new AtomicReference<>();
        AtomicReference<Throwable> xFailed = new AtomicReference<>();
        Thread x = other("X", () -> {
            try (ResultSet rs = st.executeQuery(sleep(TestDatabase.MARIADB, 2, aMarker))) {
                rs.next();
                aSlept.set(rs.getLong(1));
            }
        }, xFailed);
        awaitRunning(TestDatabase.MARIADB, aMarker);
        proxy.holdNew();
        AtomicReference<Throwable> wFailed = new AtomicReference<>();
        Thread w = other("W", st::cancel, wFailed);
        assertThat(proxy.held.await(10, TimeUnit.SECONDS)).as("W's cancel connects").isTrue();
        x.join(15_000); // A's sleep ends by itself: the KILL is still on its way
        st.close(); // A's only pin ends
        if (ds instanceof LoomPoolDataSource) {
            boundOnlyForAReason(a);
        }
        String bMarker = "b_sleep_" + tag;
        AtomicReference<Long> bSlept = new AtomicReference<>();
        AtomicReference<Throwable> bFailed = new AtomicReference<>();
        Thread b;
        if (bBeforeCancelEnds) {
            b = other("B", () -> {
                try (Connection bc = ds.getConnection()) {
                    bSlept.set(num(bc, sleep(TestDatabase.MARIADB, 3, bMarker)));
                }
            }, bFailed);
            // The cancel is a run of A's handle: the connection goes back only once it returned,
            // so B waits for it meanwhile (the pool has one connection).
            LoomPoolDataSource loom = (LoomPoolDataSource) ds;
            eventually("B waits for the pool's one connection", () -> loom.getPool().stats().pending() == 1);
            assertThat(loom.getPool().stats().inUse()).as("A's connection, held for the cancel in flight").isEqualTo(1);
            proxy.letGo();
            w.join(15_000);
            awaitRunning(TestDatabase.MARIADB, bMarker);
        } else {
            proxy.letGo();
            w.join(15_000);
            a.close();
            b = other("B", () -> {
                try (Connection bc = ds.getConnection()) {
                    bSlept.set(num(bc, sleep(TestDatabase.MARIADB, 3, bMarker)));
                }
            }, bFailed);
        }
        b.join(15_000);
        a.close();
        System.out.println("PROBE cancel race on " + ds.getClass().getSimpleName() + ": A's sleep=" + aSlept.get()
                + " (X " + xFailed.get() + "), W " + wFailed.get() + ", B " + bFailed.get());
        return bFailed.get() != null ? "B threw " + bFailed.get() : "B's sleep=" + bSlept.get();
    }
}
