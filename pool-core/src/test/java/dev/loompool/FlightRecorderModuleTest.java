package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The tests run on the class path; an application may run pool-core as the named module
 * {@code dev.loompool}, whose engine packages it exports to nobody. Flight Recorder must still
 * instrument and record the events declared there: pool-core's own classes are loaded here as that
 * module, in a layer of their own, and its ConnectionWait event read back.
 */
class FlightRecorderModuleTest {

    @Test
    void theEventsOfTheNamedModulesUnexportedEnginePackageAreRecorded() throws Exception {
        Path core = Path.of(Pool.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path slf4j = Path.of(org.slf4j.Logger.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ModuleLayer boot = ModuleLayer.boot();
        Configuration cf = boot.configuration().resolve(ModuleFinder.of(core, slf4j), ModuleFinder.of(),
                Set.of("dev.loompool"));
        ModuleLayer layer = boot.defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader());
        ClassLoader loader = layer.findLoader("dev.loompool");
        Class<?> poolType = loader.loadClass("dev.loompool.Pool");
        assertThat(poolType.getModule().isNamed()).isTrue();
        assertThat(poolType.getModule().isExported("dev.loompool.engine")).isFalse();

        Class<?> factoryType = loader.loadClass("dev.loompool.ResourceFactory");
        Object factory = Proxy.newProxyInstance(loader, new Class<?>[] {factoryType},
                (proxy, method, args) -> method.getName().equals("create") ? new Object() : null);
        String name = "jfr-module-" + System.nanoTime();
        try (FlightEvents jfr = new FlightEvents(FlightRecorderEventsTest.WAIT)) {
            Object builder = poolType.getMethod("builder", factoryType).invoke(null, factory);
            builder = builder.getClass().getMethod("name", String.class).invoke(builder, name);
            builder = builder.getClass().getMethod("maxSize", int.class).invoke(builder, 1);
            Object pool = builder.getClass().getMethod("build").invoke(builder);
            Method acquire = poolType.getMethod("acquire", Duration.class);
            Object held = acquire.invoke(pool, Duration.ofSeconds(5));
            assertThatThrownBy(() -> acquire.invoke(pool, Duration.ofMillis(20)))
                    .isInstanceOf(InvocationTargetException.class)
                    .extracting(Throwable::getCause).extracting(e -> e.getClass().getName())
                    .isEqualTo("dev.loompool.AcquireTimeoutException");
            ((AutoCloseable) held).close();
            ((AutoCloseable) pool).close();
            var events = jfr.await(FlightRecorderEventsTest.WAIT, name, 1);
            assertThat(events.get(0).getString("outcome")).isEqualTo("TIMEOUT");
        }
    }
}
