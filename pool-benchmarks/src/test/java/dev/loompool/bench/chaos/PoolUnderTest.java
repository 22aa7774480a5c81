package dev.loompool.bench.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import dev.loompool.CircuitBreakerState;
import dev.loompool.PoolListener;
import dev.loompool.PoolStats;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A pool driven by the chaos run, with what the run can observe of it. Both are opened with the
 * same size and acquire timeout and otherwise their own defaults. The invariants are asserted on
 * loompool only; HikariCP is the yardstick, and its counters are read one by one (no consistent
 * snapshot), so they are shown, not judged.
 */
abstract class PoolUnderTest implements AutoCloseable {

    /** The pool's counts at one instant; {@code pending} and the breaker are loompool's alone. */
    record Counts(int total, int idle, int inUse, int pending, int maxSize) {
        static Counts of(PoolStats s) {
            return new Counts(s.total(), s.idle(), s.inUse(), s.pending(), s.maxSize());
        }

        boolean consistent() {
            return total == idle + inUse && total <= maxSize && idle >= 0 && inUse >= 0;
        }

        @Override
        public String toString() {
            return "total=" + total + " idle=" + idle + " inUse=" + inUse + " pending=" + pending + " max=" + maxSize;
        }
    }

    abstract String label();

    abstract DataSource dataSource();

    /** Whether the suite asserts its invariants on this pool. */
    abstract boolean judged();

    abstract Counts counts();

    /** Logical connections open now, or -1 if the pool does not say. */
    abstract int openHandles();

    @Override
    public abstract void close();

    /** loompool with its defaults (breaker threshold 5, open duration 5 s); breaker moves go to {@code timeline}. */
    static PoolUnderTest loompool(String url, ChaosSettings settings, Timeline timeline) throws SQLException {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(url);
        ds.setUsername("postgres");
        ds.setMaxSize(settings.maxSize());
        ds.setAcquireTimeout(settings.acquireTimeout());
        ds.setPoolName("chaos-loompool");
        ds.addPoolListener(new PoolListener() {
            @Override
            public void onStateChanged(CircuitBreakerState from, CircuitBreakerState to) {
                timeline.breaker(from, to);
            }
        });
        ds.start();
        return new PoolUnderTest() {
            @Override
            String label() {
                return "loompool";
            }

            @Override
            DataSource dataSource() {
                return ds;
            }

            @Override
            boolean judged() {
                return true;
            }

            @Override
            Counts counts() {
                return Counts.of(ds.getPool().stats());
            }

            @Override
            int openHandles() {
                return ds.getOpenHandles();
            }

            @Override
            public void close() {
                ds.close();
            }
        };
    }

    /** HikariCP with maximumPoolSize and connectionTimeout set, its defaults otherwise. */
    static PoolUnderTest hikari(String url, ChaosSettings settings) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setUsername("postgres");
        c.setMaximumPoolSize(settings.maxSize());
        c.setConnectionTimeout(settings.acquireTimeout().toMillis());
        c.setPoolName("chaos-hikari");
        HikariDataSource ds = new HikariDataSource(c);
        return new PoolUnderTest() {
            @Override
            String label() {
                return "HikariCP";
            }

            @Override
            DataSource dataSource() {
                return ds;
            }

            @Override
            boolean judged() {
                return false;
            }

            @Override
            Counts counts() {
                HikariPoolMXBean mx = ds.getHikariPoolMXBean();
                return new Counts(mx.getTotalConnections(), mx.getIdleConnections(), mx.getActiveConnections(),
                        mx.getThreadsAwaitingConnection(), settings.maxSize());
            }

            @Override
            int openHandles() {
                return -1;
            }

            @Override
            public void close() {
                ds.close();
            }
        };
    }
}
