package dev.loompool.jdbc.internal.handle;

import dev.loompool.PoolClock;
import dev.loompool.jdbc.Credentials;
import dev.loompool.jdbc.ReleaseMode;
import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.driver.Settings;
import dev.loompool.jdbc.internal.physical.ConnectionFactory;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.physical.JdbcPoolSettings;
import dev.loompool.jdbc.internal.physical.Watcher;
import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.stub.StubDatabase;
import dev.loompool.stub.StubDriver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;

/**
 * Handles ({@link LogicalConnection}) of a {@link JdbcPool} made directly on a fresh stub database
 * ({@code pool-stub-driver}), as {@code physical.StubPoolFixture} makes one: minSize 0, maxSize 4,
 * {@link ReleaseMode#STATEMENT}, a clock that does not move, and no reclaimer.
 */
abstract class StubHandleFixture {

    private static final AtomicInteger DATABASE_NUMBER = new AtomicInteger();

    final StubDatabase db = StubDriver.database("handle" + DATABASE_NUMBER.incrementAndGet());
    final PoolClock clock = () -> 1_000_000_000_000L;
    private final List<JdbcPool> pools = new ArrayList<>();

    /** A pool with the driver's defaults. */
    JdbcPool pool() throws SQLException {
        return pool(new Settings());
    }

    /** A pool whose new connections get {@code configured} (its marked attributes), as a data source's defaults. */
    JdbcPool pool(Settings configured) throws SQLException {
        String name = "handle-" + db.name();
        JdbcPoolSettings settings = new JdbcPoolSettings(name, 0, 4, Duration.ofSeconds(5), Duration.ZERO,
                Duration.ZERO, Duration.ofSeconds(5), Duration.ZERO, Duration.ZERO, Duration.ZERO,
                ReleaseMode.STATEMENT, null, false, false, false, 0, Duration.ofSeconds(30), () -> false);
        ConnectionFactory factory = new ConnectionFactory(name, DriverManager.getDriver(db.url()), db.url(),
                new Properties(), () -> new Credentials("app", "secret"), configured, null, 0, clock,
                new SqlClassifier(SqlDialect.OTHER), false);
        JdbcPool pool = new JdbcPool(settings, factory, clock, List.of(), null, p -> new Watcher() {
            @Override
            public void scan() {
            }

            @Override
            public void stop() {
            }
        });
        pools.add(pool);
        return pool;
    }

    /** Defaults with autocommit off, as {@code setAutoCommit(false)} on the data source configures them. */
    static Settings autoCommitOff() {
        Settings s = new Settings();
        s.chooseAutoCommit(false);
        s.marked.add(SessionAttribute.AUTO_COMMIT);
        return s;
    }

    /** A new handle of {@code pool}, seen from inside. */
    static LogicalConnection open(JdbcPool pool) throws SQLException {
        return (LogicalConnection) Handles.open(pool);
    }

    static void execute(LogicalConnection h, String sql) throws SQLException {
        try (Statement st = h.createStatement()) {
            st.execute(sql);
        }
    }

    @AfterEach
    void closePools() {
        pools.forEach(JdbcPool::close);
    }
}
