package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An outage of the real PostgreSQL, made by a proxy that the test switches off (every connection
 * through it cut, every new one refused) and on again, under concurrent callers: HikariCP counts
 * every failed getConnection in {@code hikaricp.connections.timeout} and records its wait in
 * {@code .acquire}, so the alert on its rate fires through the whole outage and stops after it.
 * The invariant: the counter equals the failed borrows the callers saw, whatever failed them
 * (a connect refused, the breaker open, a wait timed out), no more (double counting) and no less.
 */
class HikariTimeoutCountsEveryFailedBorrowTest {

    private static final String POOL = "wt40b-outage";
    private static final AtomicInteger deadConnections = new AtomicInteger();

    /** A TCP proxy to PostgreSQL that can be cut: down, it closes what it carries and refuses new connections. */
    static final class Switch implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final List<Socket> open = new CopyOnWriteArrayList<>();
        private volatile boolean up = true;

        Switch(int target) throws IOException {
            Thread accept = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket client = server.accept();
                        if (!up) {
                            client.close();
                            continue;
                        }
                        Socket db = new Socket(InetAddress.getLoopbackAddress(), target);
                        open.add(client);
                        open.add(db);
                        pipe(client, db);
                        pipe(db, client);
                    } catch (IOException e) {
                        // closed, or one refused
                    }
                }
            }, "wt40b-switch");
            accept.setDaemon(true);
            accept.start();
        }

        private void pipe(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[8192];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                } catch (IOException e) {
                    // cut
                } finally {
                    quietly(from);
                    quietly(to);
                }
            });
            t.setDaemon(true);
            t.start();
        }

        private static void quietly(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }

        void down() {
            up = false;
            open.forEach(Switch::quietly);
            open.clear();
        }

        void up() {
            up = true;
        }

        String url() {
            return "jdbc:postgresql://127.0.0.1:" + server.getLocalPort() + "/test?user=postgres&connectTimeout=2";
        }

        @Override
        public void close() throws IOException {
            down();
            server.close();
        }
    }

    private static int postgresPort() {
        String url = System.getenv().getOrDefault("LOOMPOOL_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("//[^:/]+:(\\d+)/").matcher(url);
        return m.find() ? Integer.parseInt(m.group(1)) : 5432;
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    private static double timeouts(MeterRegistry r) {
        return r.get("hikaricp.connections.timeout").tag("pool", POOL).counter().count();
    }

    private static long acquires(MeterRegistry r) {
        return r.get("hikaricp.connections.acquire").tag("pool", POOL).timer().count();
    }

    private static double gauge(MeterRegistry r, String name) {
        return r.get(name).tag("pool", POOL).gauge().value();
    }

    /** Each caller runs {@code rounds} transactions (one borrow each); returns the failures they saw. */
    private static int load(LoomPoolDataSource ds, int callers, int rounds, AtomicInteger ok) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        AtomicInteger failed = new AtomicInteger();
        try {
            List<Future<?>> all = new java.util.ArrayList<>();
            for (int t = 0; t < callers; t++) {
                all.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        try (Connection c = ds.getConnection()) {
                            c.setAutoCommit(false);
                            try (Statement s = c.createStatement()) {
                                s.execute("SELECT pg_sleep(0.005)");
                            }
                            c.commit();
                            ok.incrementAndGet();
                        } catch (PSQLException deadConnection) {
                            // the statement of a borrow that succeeded: an idle connection the outage cut,
                            // handed out unchecked as recently used (HikariCP: aliveBypassWindowMs); no failed borrow
                            deadConnections.incrementAndGet();
                        } catch (SQLException e) {
                            failed.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return failed.get();
    }

    @Test
    void throughAnOutageAndItsRecoveryTheTimeoutCounterEqualsTheFailedBorrows() throws Exception {
        try (Switch db = new Switch(postgresPort())) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                            LoomPoolAutoConfiguration.class, LoomPoolMetricsAutoConfiguration.class,
                            DataSourceAutoConfiguration.class, MetricsAutoConfiguration.class,
                            SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + db.url(), "loompool.pool-name=" + POOL,
                            "loompool.min-size=2", "loompool.max-size=3", "loompool.acquire-timeout=400ms",
                            "loompool.circuit-breaker.open-duration=300ms", "loompool.metrics.hikari-compatible=true")
                    .run(context -> {
                        LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                        MeterRegistry r = context.getBean(MeterRegistry.class);
                        AtomicInteger ok = new AtomicInteger();
                        // saturation first: 8 callers on 3 connections, some time out waiting
                        int failedBusy = load(ds, 8, 20, ok);
                        assertThat(timeouts(r)).as("timeouts under saturation").isEqualTo(failedBusy);

                        db.down();
                        int failedDown = load(ds, 6, 15, ok);
                        assertThat(deadConnections.get()).as("statements on connections the outage cut").isLessThanOrEqualTo(3);
                        assertThat(failedDown).as("the database is down: borrows fail").isGreaterThan(0);
                        assertThat(timeouts(r)).as("after the outage: every failed borrow counted once")
                                .isEqualTo(failedBusy + failedDown);

                        db.up();
                        eventually("a borrow succeeds again", () -> {
                            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                                s.execute("SELECT 1");
                                ok.incrementAndGet();
                                return true;
                            } catch (SQLException stillDown) {
                                return false;
                            }
                        });
                        double atRecovery = timeouts(r);
                        int okBefore = ok.get();
                        int failedUp = load(ds, 3, 10, ok);
                        assertThat(ok.get()).as("borrows succeed after the recovery").isGreaterThan(okBefore);
                        assertThat(timeouts(r)).as("after the recovery: only its own failed borrows, if any")
                                .isEqualTo(atRecovery + failedUp);

                        eventually("every connection is back and idle, the gauges say so", () ->
                                gauge(r, "hikaricp.connections.active") == 0 && gauge(r, "hikaricp.connections.pending") == 0
                                        && gauge(r, "hikaricp.connections") == gauge(r, "hikaricp.connections.idle"));
                        assertThat(gauge(r, "hikaricp.connections")).isLessThanOrEqualTo(3);
                        // HikariCP records each failed acquire's wait in .acquire, as each success's
                        assertThat(acquires(r)).as("acquire samples: at least one per borrow, failed or not")
                                .isGreaterThanOrEqualTo((long) ok.get() + (long) timeouts(r));
                    });
        }
    }
}
