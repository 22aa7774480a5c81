package dev.loompool;

import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Nested;

/** Every scenario suite again, with each actor on its own virtual thread. */
class VirtualThreadScenariosTest {

    static final ThreadFactory VIRTUAL = Thread.ofVirtual().name("actor-", 0).factory();

    @Nested
    class AcquireRelease extends AcquireReleaseScenarios {
        @Override
        protected ThreadFactory threads() {
            return VIRTUAL;
        }
    }

    @Nested
    class Fairness extends FairnessScenarios {
        @Override
        protected ThreadFactory threads() {
            return VIRTUAL;
        }
    }

    @Nested
    class Callbacks extends CallbackScenarios {
        @Override
        protected ThreadFactory threads() {
            return VIRTUAL;
        }
    }

    @Nested
    class Lifecycle extends LifecycleScenarios {
        @Override
        protected ThreadFactory threads() {
            return VIRTUAL;
        }
    }

    @Nested
    class CircuitBreakers extends CircuitBreakerScenarios {
        @Override
        protected ThreadFactory threads() {
            return VIRTUAL;
        }
    }

    @Nested
    class Resilience extends ResilienceScenarios {
        @Override
        protected ThreadFactory threads() {
            return VIRTUAL;
        }
    }
}
