package dev.loompool.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * P3: real PostgreSQL, 200 virtual threads over 10 connections; each request queries, waits 20 ms
 * outside any transaction (a call to another service), and queries again on the same connection.
 */
final class P3SlowCall implements Scenario {

    @Override
    public String id() {
        return "P3";
    }

    @Override
    public String title() {
        return "PostgreSQL, 200 virtual threads over max 10: query, 20 ms wait outside a transaction, query";
    }

    @Override
    public String target() {
        return ">= 15x HikariCP's requests/s; p99 <= 30 ms";
    }

    @Override
    public Trial run(PoolKind pool, Mode mode) throws Exception {
        DataSource ds = pool.open(new PoolKind.Settings(Postgres.URL, null, null, 10, 10, Duration.ofSeconds(60)));
        try {
            return Load.run(pool, mode, 200, true, () -> PoolKind.connectionsOpened(ds), () -> request(ds));
        } finally {
            PoolKind.close(ds);
        }
    }

    /** The request, which P7, P8 and P9 make too: query, 20 ms wait outside a transaction, query, on one handle. */
    static void request(DataSource ds) throws SQLException, InterruptedException {
        try (Connection c = ds.getConnection()) {
            query(c);
            Thread.sleep(20);
            query(c);
        }
    }

    static void query(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1"); ResultSet rs = ps.executeQuery()) {
            rs.next();
        }
    }
}
