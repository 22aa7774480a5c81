package dev.loompool.bench;

import dev.loompool.stub.StubDriver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * P1 (and P6 with {@code -prof gc}): the pool's own overhead on a stub driver whose methods do
 * nothing: getConnection, prepareStatement, executeQuery, next, close all. Max 32 connections.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class P1Benchmark {

    @Param({"LOOMPOOL", "HIKARI", "AGROAL", "DBCP2", "VIBUR"})
    public String pool;

    private DataSource dataSource;

    @Setup(Level.Trial)
    public void open() throws SQLException {
        String url = StubDriver.database("p1").cheap(Duration.ZERO).url();
        dataSource = PoolKind.valueOf(pool).openUncounted(new PoolKind.Settings(url, null, null, 32, 32, Duration.ofSeconds(30)));
    }

    @TearDown(Level.Trial)
    public void close() {
        PoolKind.close(dataSource);
    }

    @Benchmark
    public boolean statementCycle() throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT 1");
                ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }
}
