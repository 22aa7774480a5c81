package dev.loompool;

import org.junit.jupiter.api.Test;

class VirtualThreadStressTest {

    @Test
    void aMillionRandomOperationsOnAThousandVirtualThreadsKeepEveryInvariant() throws Exception {
        new StressRun().run(Thread.ofVirtual().name("stress-", 0).factory(), 1_000, 1_000_000);
    }
}
