package dev.loompool;

import org.junit.jupiter.api.Test;

class PlatformThreadStressTest {

    @Test
    void aMillionRandomOperationsOnEightPlatformThreadsKeepEveryInvariant() throws Exception {
        new StressRun().run(Thread::new, 8, 1_000_000);
    }
}
