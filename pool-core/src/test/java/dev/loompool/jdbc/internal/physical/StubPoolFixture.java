package dev.loompool.jdbc.internal.physical;

import dev.loompool.PoolClock;
import dev.loompool.jdbc.Credentials;
import dev.loompool.jdbc.ReleaseMode;
import dev.loompool.jdbc.internal.driver.Settings;
import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.stub.StubConnection;
import dev.loompool.stub.StubDatabase;
import dev.loompool.stub.StubDriver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;

/**
 * A {@link JdbcPool} made directly on a fresh stub database ({@code pool-stub-driver}), without a
 * data source or a handle, on a clock the test moves ({@link #now}): its connections come from
 * {@link JdbcPool#connect()}, and a test calls the room's callbacks on them itself.
 */
abstract class StubPoolFixture {

    private static final AtomicInteger DATABASE_NUMBER = new AtomicInteger();

    final StubDatabase db = StubDriver.database("physical" + DATABASE_NUMBER.incrementAndGet());
    /** The pools' clock: what {@link #clock} reads; a test moves it forward. */
    long now = 1_000_000_000_000L;
    final PoolClock clock = () -> now;
    private final List<JdbcPool> pools = new ArrayList<>();

    /** minSize 0, validationTimeout 5 s, no max lifetime, no pooler in transaction mode. */
    JdbcPool pool() throws SQLException {
        return pool(0, Duration.ZERO, Duration.ZERO, false);
    }

    /**
     * {@code transactionPooler}: the pool's own rule (session state is never reset); the factory
     * connects as to the database itself, since behind a pooler it reads the isolation by
     * PostgreSQL's SQL, which the stub does not answer.
     */
    JdbcPool pool(int minSize, Duration maxLifetime, Duration initializationFailTimeout, boolean transactionPooler)
            throws SQLException {
        String name = "physical-" + db.name();
        JdbcPoolSettings settings = new JdbcPoolSettings(name, minSize, 4, Duration.ofSeconds(5), Duration.ZERO,
                Duration.ZERO, Duration.ofSeconds(5), Duration.ZERO, Duration.ZERO, initializationFailTimeout,
                ReleaseMode.STATEMENT, null, false, transactionPooler, false, 0, Duration.ofSeconds(30), () -> false);
        ConnectionFactory factory = new ConnectionFactory(name, DriverManager.getDriver(db.url()), db.url(),
                new Properties(), () -> new Credentials("app", "secret"), new Settings(), null,
                JdbcPool.nanos(maxLifetime), clock, new SqlClassifier(SqlDialect.OTHER), false);
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

    /** The stub connection a physical connection of this database is. */
    static StubConnection stub(PhysicalConnection p) {
        return (StubConnection) p.raw;
    }

    @AfterEach
    void closePools() {
        pools.forEach(JdbcPool::close);
    }
}
