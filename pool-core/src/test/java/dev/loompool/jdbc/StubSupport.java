package dev.loompool.jdbc;

import dev.loompool.stub.StubConnection;
import dev.loompool.stub.StubDatabase;
import dev.loompool.stub.StubDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;

/** A fresh stub database and data source per test. */
abstract class StubSupport {

    private static final AtomicInteger DATABASE_NUMBER = new AtomicInteger();

    final StubDatabase db = StubDriver.database("db" + DATABASE_NUMBER.incrementAndGet());
    private final List<LoomPoolDataSource> dataSources = new ArrayList<>();

    LoomPoolDataSource dataSource() {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(db.url());
        ds.setPoolName("stub-" + db.name());
        ds.setMinSize(0);
        ds.setMaxSize(4);
        ds.setAcquireTimeout(Duration.ofSeconds(5));
        dataSources.add(ds);
        return ds;
    }

    /** The stub connection that the handle's physical connection is. */
    StubConnection stub(int id) {
        return db.connection(id);
    }

    static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @AfterEach
    void closeDataSources() {
        dataSources.forEach(LoomPoolDataSource::close);
    }
}
