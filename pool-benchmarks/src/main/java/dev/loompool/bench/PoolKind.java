package dev.loompool.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import dev.loompool.PoolListener;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.ServerPooler;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.AgroalDataSourceListener;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.apache.commons.dbcp2.BasicDataSource;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.vibur.dbcp.ViburDBCPDataSource;

/**
 * The pools under comparison, each opened with the same settings and otherwise its own defaults:
 * what a user who picks it gets. {@link #open} also counts, by each pool's own event or counter,
 * the connections it opens: {@link #connectionsOpened}.
 */
enum PoolKind {
    LOOMPOOL("loompool"),
    HIKARI("HikariCP"),
    AGROAL("Agroal"),
    DBCP2("DBCP2"),
    VIBUR("Vibur");

    /**
     * Each counted pool's count of the connections it opened, until it is closed. Keyed by the
     * data source, so that {@link #open} keeps the type every scenario already uses.
     */
    private static final Map<DataSource, LongSupplier> OPENED = new ConcurrentHashMap<>();

    final String label;

    PoolKind(String label) {
        this.label = label;
    }

    /**
     * What every pool is opened with. {@code minSize} connections are opened up front. With
     * {@code pgBouncerTransaction} the URL leads to PgBouncer in transaction mode, and each pool is
     * set up the way its documentation says for that (P9).
     */
    record Settings(String url, String user, String password, int minSize, int maxSize, Duration acquireTimeout,
            boolean pgBouncerTransaction) {

        Settings(String url, String user, String password, int minSize, int maxSize, Duration acquireTimeout) {
            this(url, user, password, minSize, maxSize, acquireTimeout, false);
        }
    }

    /** Opened with its connections counted (see {@link #connectionsOpened}). */
    DataSource open(Settings given) throws SQLException {
        AtomicLong opened = new AtomicLong();
        DataSource ds = open(given, opened);
        OPENED.put(ds, switch (this) {
            case DBCP2 -> () -> {
                GenericObjectPool<?> pool = ((BasicDataSource) ds).getConnectionPool(); // made at the first getConnection
                return pool == null ? 0 : pool.getCreatedCount(); // cumulative
            };
            default -> opened::get;
        });
        return ds;
    }

    /**
     * Opened as a user would, with nothing counted: P1 (JMH) times a cycle of some 100 ns, where
     * the 2 to 3 clock reads per cycle that loompool's listener and HikariCP's metrics tracker turn
     * on would show.
     */
    DataSource openUncounted(Settings given) throws SQLException {
        return open(given, null);
    }

    /**
     * The connections {@code ds}, opened by {@link #open}, has opened so far, by its own count:
     * loompool's {@link PoolListener#onCreated}, HikariCP's metrics tracker
     * ({@code recordConnectionCreatedMillis}, which HikariCP also calls for a connect that failed),
     * Agroal's listener ({@code onConnectionCreation}), DBCP2's {@code GenericObjectPool.getCreatedCount}
     * and Vibur's init hook. Agroal's own {@code creationCount()} needs its metrics on, which time
     * every acquire and return: the listener's event is the same count, without them. Vibur's
     * {@code createdTotal()} is the current count (it goes down as connections are closed), not a
     * cumulative one. The events' counters are plain atomics: connects are rare.
     */
    static long connectionsOpened(DataSource ds) {
        LongSupplier opened = OPENED.get(ds);
        if (opened == null) {
            throw new IllegalStateException("not opened with counting, or closed: " + ds);
        }
        return opened.getAsLong();
    }

    private DataSource open(Settings given, AtomicLong opened) throws SQLException {
        // The other pools' documented way behind PgBouncer in transaction mode: pgjdbc's unnamed
        // statements, set in the URL (HikariCP's wiki). loompool's setting does that itself.
        Settings s = given.pgBouncerTransaction() && this != LOOMPOOL
                ? new Settings(given.url() + (given.url().contains("?") ? "&" : "?") + "prepareThreshold=0", given.user(),
                        given.password(), given.minSize(), given.maxSize(), given.acquireTimeout(), true)
                : given;
        switch (this) {
            case LOOMPOOL: {
                LoomPoolDataSource ds = new LoomPoolDataSource();
                ds.setJdbcUrl(s.url());
                ds.setUsername(s.user());
                ds.setPassword(s.password());
                ds.setMinSize(s.minSize());
                ds.setMaxSize(s.maxSize());
                ds.setAcquireTimeout(s.acquireTimeout());
                ds.setCircuitBreakerOpenDuration(Duration.ofSeconds(1));
                ds.setPoolName("bench");
                if (opened != null) {
                    ds.addPoolListener(new PoolListener() {
                        @Override
                        public void onCreated(long createNanos) {
                            opened.incrementAndGet();
                        }
                    });
                }
                if (s.pgBouncerTransaction()) {
                    ds.setServerPooler(ServerPooler.PGBOUNCER_TRANSACTION);
                }
                if (s.minSize() > 0) {
                    ds.start();
                }
                return ds;
            }
            case HIKARI: {
                HikariConfig c = new HikariConfig();
                c.setJdbcUrl(s.url());
                c.setUsername(s.user());
                c.setPassword(s.password());
                c.setMinimumIdle(s.minSize());
                c.setMaximumPoolSize(s.maxSize());
                c.setConnectionTimeout(Math.max(250, s.acquireTimeout().toMillis()));
                c.setInitializationFailTimeout(-1); // start even when the database is down (P4)
                c.setPoolName("bench");
                if (opened != null) {
                    c.setMetricsTrackerFactory((name, stats) -> new IMetricsTracker() {
                        @Override
                        public void recordConnectionCreatedMillis(long millis) {
                            opened.incrementAndGet();
                        }
                    });
                }
                return new HikariDataSource(c);
            }
            case AGROAL:
                return AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier().connectionPoolConfiguration(
                        p -> p.minSize(s.minSize()).initialSize(s.minSize()).maxSize(s.maxSize())
                                .acquisitionTimeout(s.acquireTimeout())
                                .connectionFactoryConfiguration(f -> {
                                    f.jdbcUrl(s.url());
                                    if (s.user() != null) {
                                        f.principal(new NamePrincipal(s.user()));
                                    }
                                    if (s.password() != null) {
                                        f.credential(new SimplePassword(s.password()));
                                    }
                                    return f;
                                })), opened == null ? new AgroalDataSourceListener[0] : new AgroalDataSourceListener[] {
                                    new AgroalDataSourceListener() {
                                        @Override
                                        public void onConnectionCreation(Connection connection) {
                                            opened.incrementAndGet();
                                        }
                                    }});
            case DBCP2: {
                BasicDataSource ds = new BasicDataSource();
                ds.setUrl(s.url());
                ds.setUsername(s.user());
                // Without a password DBCP2 writes a line to stderr at every connect (20,000 in one quick
                // run); an empty one is what the URL's trust or stub login ignores anyway.
                ds.setPassword(s.password() == null ? "" : s.password());
                ds.setInitialSize(s.minSize());
                ds.setMinIdle(s.minSize());
                ds.setMaxIdle(s.maxSize());
                ds.setMaxTotal(s.maxSize());
                ds.setMaxWait(s.acquireTimeout());
                return ds;
            }
            default: {
                ViburDBCPDataSource ds = new ViburDBCPDataSource();
                ds.setJdbcUrl(s.url());
                // Vibur puts these into Properties, which refuses null; the URL's own user still applies.
                ds.setUsername(s.user() == null ? "" : s.user());
                ds.setPassword(s.password() == null ? "" : s.password());
                ds.setPoolInitialSize(s.minSize());
                ds.setPoolMaxSize(s.maxSize());
                ds.setConnectionTimeoutInMs(s.acquireTimeout().toMillis());
                // Vibur times every statement and logs statistics every 100 queries by default
                // (37,000 INFO lines in one quick run): off, as the other pools have nothing like it.
                ds.setCollectQueryStatistics(0);
                ds.setLogQueryExecutionLongerThanMs(-1);
                ds.setLogConnectionLongerThanMs(-1);
                ds.setLogLargeResultSet(-1);
                ds.setName("bench");
                if (opened != null) { // Vibur calls it after a failed connect too, with no connection
                    ds.getConnHooks().addOnInit((connection, takenNanos) -> {
                        if (connection != null) {
                            opened.incrementAndGet();
                        }
                    });
                }
                ds.start();
                return ds;
            }
        }
    }

    static void close(DataSource ds) {
        OPENED.remove(ds);
        try {
            if (ds instanceof AutoCloseable c) {
                c.close();
            }
        } catch (Exception e) {
            System.err.println("closing " + ds.getClass().getSimpleName() + " failed: " + e);
        }
    }
}
