package dev.loompool.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * P3w: P3 with a write first. Real PostgreSQL, 200 virtual threads over 10 connections; each
 * request inserts a row with {@code RETURN_GENERATED_KEYS} and reads its key, waits 20 ms outside
 * any transaction (a call to another service), then reads the row back by that key, on the same
 * handle. The generated keys are a result set the driver makes for the insert (pgjdbc appends
 * {@code RETURNING *}): whether the pool lets the connection go once the statement is closed is
 * what this scenario asks. The table is created at the start of each trial and dropped at its end.
 */
final class P3wGeneratedKeys implements Scenario {

    /** Its own table, apart from every other scenario's (P5's bench_*, bench-app's databases). */
    static final String TABLE = "p3w_orders";
    private static final String INSERT = "INSERT INTO " + TABLE + " (payload) VALUES (?)";
    private static final String SELECT = "SELECT payload FROM " + TABLE + " WHERE id = ?";

    @Override
    public String id() {
        return "P3w";
    }

    @Override
    public String title() {
        return "PostgreSQL, 200 virtual threads over max 10: insert with generated keys, 20 ms wait outside a transaction, "
                + "select by the key";
    }

    @Override
    public String target() {
        return ">= 15x HikariCP's requests/s (as P3)";
    }

    @Override
    public Trial run(PoolKind pool, Mode mode) throws Exception {
        // Over plain driver connections, so that the pool's count of its own connects is the load's alone.
        admin("DROP TABLE IF EXISTS " + TABLE); // left by a run that was killed
        admin("CREATE TABLE " + TABLE + " (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload text NOT NULL)");
        try {
            DataSource ds = pool.open(new PoolKind.Settings(Postgres.URL, null, null, 10, 10, Duration.ofSeconds(60)));
            try {
                return Load.run(pool, mode, 200, true, () -> PoolKind.connectionsOpened(ds), () -> request(ds));
            } finally {
                PoolKind.close(ds);
            }
        } finally {
            admin("DROP TABLE IF EXISTS " + TABLE);
        }
    }

    /**
     * Insert and read the generated key, 20 ms outside a transaction, select the row by its key, on
     * one handle. A missing key or row fails the request (an error of the trial, which fails the run).
     */
    static void request(DataSource ds) throws SQLException, InterruptedException {
        try (Connection c = ds.getConnection()) {
            long id;
            try (PreparedStatement ps = c.prepareStatement(INSERT, Statement.RETURN_GENERATED_KEYS)) {
                ps.setString(1, "order");
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    if (!keys.next()) {
                        throw new IllegalStateException("the insert into " + TABLE + " returned no generated key");
                    }
                    id = keys.getLong("id");
                }
            }
            Thread.sleep(20);
            try (PreparedStatement ps = c.prepareStatement(SELECT)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalStateException("no row in " + TABLE + " with the generated key " + id);
                    }
                }
            }
        }
    }

    private static void admin(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(Postgres.URL); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
