package dev.loompool.sample;

import dev.loompool.jdbc.LoomConnection;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * The case loompool is for: one connection held across a slow call to another service, outside
 * any transaction. A classic pool would hold a physical connection for the whole wait; loompool
 * gives it back after the first query and binds again for the second.
 */
@Service
public class SlowReport {

    private final DataSource dataSource;
    private final Duration defaultDelay;

    public SlowReport(DataSource dataSource, @Value("${sample.slow-dependency.delay:200ms}") Duration defaultDelay) {
        this.dataSource = dataSource;
        this.defaultDelay = defaultDelay;
    }

    public record Report(long account, BigDecimal balanceBefore, String rating, BigDecimal balanceAfter,
            long waitedMillis, boolean heldConnectionWhileWaiting) {
    }

    public Report report(long account, Duration delay) throws SQLException, InterruptedException {
        Duration wait = delay != null ? delay : defaultDelay;
        try (Connection c = dataSource.getConnection()) {
            BigDecimal before = balance(c, account);
            boolean held = c.isWrapperFor(LoomConnection.class) && c.unwrap(LoomConnection.class).isBound();
            long start = System.nanoTime();
            String rating = slowRatingService(before, wait);
            long waited = (System.nanoTime() - start) / 1_000_000;
            BigDecimal after = balance(c, account);
            return new Report(account, before, rating, after, waited, held);
        }
    }

    /** Stands in for an HTTP call to another service. */
    private static String slowRatingService(BigDecimal balance, Duration delay) throws InterruptedException {
        Thread.sleep(delay.toMillis());
        return balance.compareTo(BigDecimal.valueOf(1000)) >= 0 ? "gold" : "standard";
    }

    private static BigDecimal balance(Connection c, long account) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT balance FROM sample_account WHERE id = ?")) {
            ps.setLong(1, account);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalArgumentException("no such account: " + account);
                }
                return rs.getBigDecimal(1);
            }
        }
    }
}
