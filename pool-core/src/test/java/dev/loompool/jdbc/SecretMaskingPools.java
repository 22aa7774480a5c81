package dev.loompool.jdbc;

import dev.loompool.ManualClockAccess;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;

/**
 * Pools for the secret-masking tests: the stub's and real servers', on a manual clock, with a pin
 * warning threshold and MBeans, closed after each test; and the secret every input holds.
 */
abstract class SecretMaskingPools extends StubSupport {

    static final String SECRET = "S3cretTok9";

    final ManualClockAccess clock = new ManualClockAccess();
    final List<LoomPoolDataSource> real = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeReal() {
        real.forEach(LoomPoolDataSource::close);
    }

    LoomPoolDataSource realPool(TestDatabase database) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(database.url());
        ds.setPoolName("atkmask-" + UUID.randomUUID().toString().substring(0, 8));
        ds.setMinSize(0);
        real.add(ds);
        return configure(ds);
    }

    LoomPoolDataSource configure(LoomPoolDataSource ds) {
        ds.setMaxSize(2);
        ds.setClock(clock);
        ds.setPinWarningThreshold(Duration.ofSeconds(10));
        ds.setRegisterMbeans(true);
        return ds;
    }
}
