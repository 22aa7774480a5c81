package dev.loompool.jdbc;

import dev.loompool.ManualClockAccess;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Pools for the secret-masking tests, held by the test as a {@code @RegisterExtension} field: the
 * stub's and real servers', on a manual clock, with a pin warning threshold and MBeans, the real
 * servers' closed after each test. The secret every input holds: {@link SecretLeaks#SECRET}.
 */
final class SecretMaskingPools implements AfterTestExecutionCallback {

    final ManualClockAccess clock = new ManualClockAccess();
    final List<LoomPoolDataSource> real = new CopyOnWriteArrayList<>();

    /** Closes the real servers' pools right after the test method, before the test's {@code @AfterEach} methods. */
    @Override
    public void afterTestExecution(ExtensionContext context) {
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
