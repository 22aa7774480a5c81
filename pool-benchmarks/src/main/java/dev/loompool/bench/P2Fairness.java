package dev.loompool.bench;

import dev.loompool.stub.StubDriver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import javax.sql.DataSource;

/** P2: 2,000 virtual threads over 10 connections; the stub query parks 100 µs. Throughput and every request's latency. */
final class P2Fairness implements Scenario {

    @Override
    public String id() {
        return "P2";
    }

    @Override
    public String title() {
        return "2,000 virtual threads over max 10, stub query parks 100 µs";
    }

    @Override
    public String target() {
        return "throughput >= HikariCP's; max latency <= 2x median";
    }

    @Override
    public Trial run(PoolKind pool, Mode mode) throws Exception {
        String url = StubDriver.database("p2").cheap(Duration.of(100, ChronoUnit.MICROS)).url();
        DataSource ds = pool.open(new PoolKind.Settings(url, null, null, 10, 10, Duration.ofSeconds(60)));
        try {
            return Load.run(pool, mode, 2000, true, () -> PoolKind.connectionsOpened(ds), () -> {
                try (Connection c = ds.getConnection();
                        PreparedStatement ps = c.prepareStatement("SELECT 1");
                        ResultSet rs = ps.executeQuery()) {
                    rs.next();
                }
            });
        } finally {
            PoolKind.close(ds);
        }
    }
}
