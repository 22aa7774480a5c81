package dev.loompool;

import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Nested;

/** Every scenario suite on platform threads. The JDK 21+ profile runs them again on virtual threads. */
class PlatformThreadScenariosTest {

    static final ThreadFactory PLATFORM = Thread::new;

    @Nested
    class AcquireRelease extends AcquireReleaseScenarios {
        @Override
        protected ThreadFactory threads() {
            return PLATFORM;
        }
    }

    @Nested
    class Fairness extends FairnessScenarios {
        @Override
        protected ThreadFactory threads() {
            return PLATFORM;
        }
    }

    @Nested
    class Callbacks extends CallbackScenarios {
        @Override
        protected ThreadFactory threads() {
            return PLATFORM;
        }
    }

    @Nested
    class Lifecycle extends LifecycleScenarios {
        @Override
        protected ThreadFactory threads() {
            return PLATFORM;
        }
    }

    @Nested
    class CircuitBreakers extends CircuitBreakerScenarios {
        @Override
        protected ThreadFactory threads() {
            return PLATFORM;
        }
    }

    @Nested
    class Resilience extends ResilienceScenarios {
        @Override
        protected ThreadFactory threads() {
            return PLATFORM;
        }
    }
}
