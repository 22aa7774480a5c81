package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The MBean is registered before the start opens its first connections, so its writable limits can
 * be set while the pool is still starting (a slow database, a long pre-warm): such a change must
 * reach the pool, or be refused; never be taken by the getter and lost by the pool.
 */
class LimitsDuringStartTest extends StubSupport {

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Test
    void aLimitSetThroughJmxWhileThePoolStartsReachesThePoolOrIsRefused() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setMinSize(1);
        ds.setRegisterMbeans(true);
        CountDownLatch connecting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ds.setCredentialsSupplier(() -> {
            connecting.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Credentials("sa", "");
        });
        CompletableFuture<Void> start = CompletableFuture.runAsync(() -> {
            try {
                ds.start();
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(connecting.await(30, TimeUnit.SECONDS)).as("the start opens its first connection").isTrue();
        ObjectName name = LoomPoolMXBeanTest.nameOf(ds.getPoolName());
        boolean taken;
        try {
            server.setAttribute(name, new Attribute("MaxSize", 3));
            taken = true;
        } catch (javax.management.RuntimeMBeanException refused) {
            taken = false;
        } finally {
            release.countDown();
        }
        start.get(30, TimeUnit.SECONDS);
        assertThat(ds.getMaxSize()).as("the getter, and the MXBean, tell what the pool does")
                .isEqualTo(ds.getPool().stats().maxSize());
        assertThat(server.getAttribute(name, "MaxSize")).isEqualTo(ds.getPool().stats().maxSize());
        if (taken) {
            assertThat(ds.getPool().stats().maxSize()).isEqualTo(3);
        }
    }
}
