package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jmx.JmxEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.jmx.ExposableJmxEndpoint;
import org.springframework.boot.actuate.endpoint.jmx.JmxEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.jmx.JmxOperation;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jmx.JmxAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@code POST /actuator/loompool/{name}/limits}: every value checked before any applies, so a
 * refused request (400) changes nothing; the answer and the log line never show a password; and
 * the operation exists only with {@code management.endpoint.loompool.access=unrestricted}.
 */
@ExtendWith(OutputCaptureExtension.class)
class LimitsEndpointTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    LoomPoolEndpointAutoConfiguration.class, DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                    "spring.datasource.username=sa", "spring.datasource.password=hunter2",
                    "loompool.pool-name=orders", "loompool.max-size=4", "loompool.min-size=2",
                    "management.endpoints.web.exposure.include=loompool");

    private static void unchanged(LoomPoolDataSource ds) {
        assertThat(ds.getMinSize()).isEqualTo(2);
        assertThat(ds.getMaxSize()).isEqualTo(4);
        assertThat(ds.getPool().stats().minSize()).isEqualTo(2);
        assertThat(ds.getPool().stats().maxSize()).isEqualTo(4);
        assertThat(ds.getAcquireTimeout()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aTimeoutPastTheClocksRangeIsTakenAsNeverWithTheRestOfTheRequest() {
        // As the setters and JMX take it (and HikariCP takes Long.MAX_VALUE): saturated, never half applied
        runner.run(context -> {
            LoomPoolEndpoint endpoint = context.getBean(LoomPoolEndpoint.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            for (String huge : new String[] {"300000d", String.valueOf(Long.MAX_VALUE)}) {
                assertThat(endpoint.changeLimits("orders", "limits", null, 3, huge, null)).as(huge).containsEntry("maxSize", 3);
                assertThat(ds.getPool().stats().maxSize()).isEqualTo(3);
                assertThat(ds.getAcquireTimeout()).isGreaterThan(Duration.ofDays(100_000));
                endpoint.changeLimits("orders", "limits", null, 4, "30s", null);
                unchanged(ds);
            }
            assertThat(endpoint.changeLimits("orders", "limits", 1, 3, null, "300000d"))
                    .containsEntry("minSize", 1).containsEntry("leakDetectionThreshold", Duration.ofDays(300_000).toString());
        });
    }

    @Test
    void outOfOrderNegativeOrUnreadableValuesAreA400ThatChangesNothing() {
        runner.run(context -> {
            LoomPoolEndpoint endpoint = context.getBean(LoomPoolEndpoint.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            unchanged(ds);
            Object[][] refused = {
                    {5, 3, null, null}, {5, null, null, null}, {null, 1, null, null}, {-1, null, null, null},
                    {null, 0, null, null}, {null, Integer.MIN_VALUE, null, null}, {0, 3, "-1s", null},
                    {0, 3, "soon", null}, {0, 3, null, "-5"}, {0, 3, "5s", "PT-1S"}, {0, 3, "", null}};
            for (Object[] r : refused) {
                assertThatThrownBy(() -> endpoint.changeLimits("orders", "limits", (Integer) r[0], (Integer) r[1],
                        (String) r[2], (String) r[3])).as(Arrays.toString(r))
                        .isInstanceOf(InvalidEndpointRequestException.class);
                unchanged(ds);
            }
        });
    }

    @Test
    void sizesMovedPastEachOtherInOneRequestApplyInTheOrderThatKeepsMinAtMostMax() {
        runner.run(context -> {
            LoomPoolEndpoint endpoint = context.getBean(LoomPoolEndpoint.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            assertThat(endpoint.changeLimits("orders", "limits", 6, 8, null, null)).containsEntry("minSize", 6)
                    .containsEntry("maxSize", 8);
            assertThat(endpoint.changeLimits("orders", "limits", 0, 1, "250ms", "1h")).containsEntry("minSize", 0)
                    .containsEntry("maxSize", 1).containsEntry("acquireTimeout", "PT0.25S")
                    .containsEntry("leakDetectionThreshold", "PT1H");
            assertThat(ds.getPool().stats().maxSize()).isEqualTo(1);
            assertThat(ds.getPool().stats().minSize()).isZero();
            assertThat(endpoint.changeLimits("orders", "limits", null, Integer.MAX_VALUE, "0", "0"))
                    .containsEntry("maxSize", Integer.MAX_VALUE).containsEntry("acquireTimeout", "PT0S");
            assertThat(endpoint.changeLimits("orders", "limits", null, null, null, null)).as("an empty body changes nothing")
                    .containsEntry("maxSize", Integer.MAX_VALUE);
            assertThat(endpoint.changeLimits("orders", "other", 1, null, null, null)).isNull();
            assertThat(endpoint.changeLimits("nope", "limits", 1, null, null, null)).isNull();
        });
    }

    /** JMX's setMaxSize(1) is taken when minSize was never set (it follows maxSize down): the endpoint must agree. */
    @Test
    void aLowerMaxSizeIsTakenWhenMinSizeWasNeverSetAsThroughJmx() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, LoomPoolEndpointAutoConfiguration.class,
                        DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                        "loompool.pool-name=orders", "loompool.max-size=4",
                        "management.endpoints.web.exposure.include=loompool").run(context -> {
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            LoomPoolEndpoint endpoint = context.getBean(LoomPoolEndpoint.class);
            assertThat(ds.getMinSize()).isEqualTo(2);
            assertThat(endpoint.changeLimits("orders", "limits", null, 1, null, null)).containsEntry("maxSize", 1)
                    .containsEntry("minSize", 1);
        });
    }

    @Test
    void afterTheCloseTheLimitsAreNotFoundAndNoAnswerOrLogLineShowsThePassword(CapturedOutput output) {
        runner.run(context -> {
            LoomPoolEndpoint endpoint = context.getBean(LoomPoolEndpoint.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            Map<String, Object> changed = endpoint.changeLimits("orders", "limits", 1, 3, "2s", "1m");
            assertThat(changed.toString()).doesNotContain("hunter2");
            try {
                endpoint.changeLimits("orders", "limits", 9, 3, "2s", "1m");
            } catch (InvalidEndpointRequestException refused) {
                assertThat(refused.getMessage()).doesNotContain("hunter2");
            }
            ds.close();
            assertThat(endpoint.changeLimits("orders", "limits", 1, 2, null, null)).isNull();
        });
        assertThat(output).contains("limits changed through the endpoint").doesNotContain("hunter2");
    }

    private static Set<String> operations(String access) {
        String id = "limits-" + UUID.randomUUID().toString().substring(0, 8);
        Set<String>[] names = new Set[1];
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class,
                        LoomPoolAutoConfiguration.class, LoomPoolEndpointAutoConfiguration.class,
                        DataSourceAutoConfiguration.class, JmxAutoConfiguration.class, EndpointAutoConfiguration.class,
                        JmxEndpointAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + LoomPoolAutoConfigurationTest.h2(),
                        "loompool.pool-name=orders", "spring.jmx.enabled=true", "spring.jmx.default-domain=" + id,
                        "management.endpoints.jmx.exposure.include=loompool",
                        "management.endpoints.jmx.domain=" + id)
                .withPropertyValues(access == null ? new String[0]
                        : new String[] {"management.endpoint.loompool.access=" + access})
                .run(context -> {
                    // what Boot's JMX exporter would export: the discovered endpoints, filtered by access
                    JmxEndpointsSupplier endpoints = context.getBean(JmxEndpointsSupplier.class);
                    ExposableJmxEndpoint loompool = endpoints.getEndpoints().stream()
                            .filter(e -> e.getEndpointId().toString().equals("loompool")).findFirst().orElseThrow();
                    names[0] = loompool.getOperations().stream().map(JmxOperation::getName).collect(Collectors.toSet());
                });
        return names[0];
    }

    /**
     * The operations as Boot discovers them for JMX (the web mapping filters by the same access).
     * Upper case: this runner's environment has no ApplicationConversionService, which reads read-only.
     */
    @Test
    void theChangeOfLimitsIsExposedOnlyWithUnrestrictedAccess() {
        assertThat(operations(null)).contains("pools", "pool").doesNotContain("changeLimits", "setState", "evict");
        assertThat(operations("READ_ONLY")).doesNotContain("changeLimits", "setState", "evict");
        assertThat(operations("UNRESTRICTED")).contains("changeLimits", "setState", "evict");
    }

    /** The replicas' sizes are part of the check: a maxSize a fixed replicaMinSize forbids is a 400, not a 500. */
    @Test
    void aMaxSizeTheReplicasForbidIsA400() {
        runner.withPropertyValues("loompool.replicas=" + LoomPoolAutoConfigurationTest.h2(), "loompool.replica-min-size=3")
                .run(context -> {
                    LoomPoolEndpoint endpoint = context.getBean(LoomPoolEndpoint.class);
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    Throwable refusal = catchThrowable(() -> endpoint.changeLimits("orders", "limits", 1, 2, null, null));
                    assertThat(ds.getMaxSize()).isEqualTo(4);
                    assertThat(ds.getMinSize()).as("nothing applied").isEqualTo(2);
                    assertThat(refusal).isInstanceOf(InvalidEndpointRequestException.class);
                });
    }

    /**
     * The endpoint and JMX (here the same setters JMX calls) change the sizes at once: a request the
     * other change made impossible must be a 400, never a 500, and never leave min above max.
     */
    @Test
    void concurrentChangesThroughTheEndpointAndJmxRefuseWithA400AndKeepMinAtMostMax() {
        runner.run(context -> {
            LoomPoolEndpoint endpoint = context.getBean(LoomPoolEndpoint.class);
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            java.util.List<Throwable> other = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread jmx = new Thread(() -> {
                for (int i = 0; running.get(); i++) {
                    try {
                        ds.setMinSize(i % 2 == 0 ? 5 : 0);
                    } catch (IllegalArgumentException refused) {
                        // maxSize below 5 at that moment
                    } catch (RuntimeException e) {
                        other.add(e);
                    }
                }
            });
            jmx.start();
            for (int i = 0; i < 5_000; i++) {
                try {
                    endpoint.changeLimits("orders", "limits", null, i % 2 == 0 ? 3 : 8, null, null);
                } catch (InvalidEndpointRequestException refused) {
                    // a 400
                } catch (RuntimeException e) {
                    other.add(e);
                }
                assertThat(ds.getPool().stats().minSize()).isLessThanOrEqualTo(ds.getPool().stats().maxSize());
            }
            running.set(false);
            jmx.join();
            assertThat(other).as("anything but a 400 is a 500 to the caller").isEmpty();
        });
    }
}
