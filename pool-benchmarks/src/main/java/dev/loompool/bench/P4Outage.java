package dev.loompool.bench;

import dev.loompool.stub.StubDatabase;
import dev.loompool.stub.StubDriver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * P4: the database is down (a closed port). 50 virtual threads keep asking; every request fails.
 * What matters is how fast it fails, and how often the pool knocks on the dead server meanwhile.
 */
final class P4Outage implements Scenario {

    /** Counts the connect attempts, which the real driver then makes (and fails). */
    private static final StubDatabase DEAD = StubDriver.database("p4")
            .forwardTo("jdbc:postgresql://127.0.0.1:1/test?connectTimeout=2");

    @Override
    public String id() {
        return "P4";
    }

    @Override
    public String title() {
        return "database down (closed port), 50 virtual threads, acquire timeout 2 s";
    }

    @Override
    public String target() {
        return "once the breaker is open, p99 failure latency < 1 ms; about one connect attempt per open duration (1 s)";
    }

    /** Each pool knocks on the dead server by design: its churn is reported, not judged. */
    @Override
    public boolean reconnects() {
        return true;
    }

    @Override
    public boolean errorsAreFailures() {
        return false;
    }

    @Override
    public Trial run(PoolKind pool, Mode mode) throws Exception {
        DataSource ds = pool.open(new PoolKind.Settings(DEAD.url(), "postgres", null, 0, 10, Duration.ofSeconds(2)));
        try {
            long before = DEAD.connects();
            // Failing is the request: the latency recorded is the time to fail. A success escapes as an error.
            Trial trial = Load.run(pool, mode, 50, true, () -> PoolKind.connectionsOpened(ds), () -> {
                try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT 1")) {
                    throw new IllegalStateException("a dead database answered");
                } catch (SQLException expected) {
                    // the outage, as every pool reports it
                }
            });
            long attempts = DEAD.connects() - before;
            double window = (mode.warmup.toNanos() + mode.measure.toNanos()) / 1e9;
            trial.extra.put("connect attempts", attempts);
            trial.extra.put("attempts/s", String.format("%.1f", attempts / window));
            return trial;
        } finally {
            PoolKind.close(ds);
        }
    }
}
