package dev.loompool.jdbc;

import java.time.Duration;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Pools of one stub connection behind {@link DeepGateDriver}, held by a {@link StubSupport} test
 * as a {@code @RegisterExtension} field: the test's stub database behind the deep gate, and the
 * gate and fault disarmed after each test. The threads that race on it and the checks they end
 * with: {@link RacingThreads}.
 */
final class DeepGatedPools implements AfterTestExecutionCallback {

    private final StubSupport stubs;

    DeepGatedPools(StubSupport stubs) {
        this.stubs = stubs;
    }

    /** A pool of one stub connection behind the deep gate. */
    LoomPoolDataSource one() {
        LoomPoolDataSource ds = stubs.dataSource();
        ds.setJdbcUrl(DeepGateDriver.PREFIX + stubs.db.url());
        ds.setDriverClassName(DeepGateDriver.class.getName());
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }

    /**
     * Disarms the gate right after the test method, before the test's {@code @AfterEach} methods
     * (StubSupport's close of its pools): a gate left armed must not stop that close.
     */
    @Override
    public void afterTestExecution(ExtensionContext context) {
        DeepGateDriver.gate = null;
        DeepGateDriver.fault = null;
    }
}
