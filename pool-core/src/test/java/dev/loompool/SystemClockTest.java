package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The system clock's coarse reading: never ahead of the system clock, and it follows it. */
class SystemClockTest {

    private final PoolClock clock = PoolClock.SYSTEM;

    @Test
    void theCoarseReadingNeverLeadsTheSystemClock() {
        for (int i = 0; i < 200_000; i++) {
            long coarse = clock.coarseNanoTime();
            assertThat(coarse - System.nanoTime()).isLessThanOrEqualTo(0);
        }
    }

    @Test
    void theCoarseReadingFollowsTheSystemClock() throws InterruptedException {
        long before = System.nanoTime();
        clock.coarseNanoTime(); // starts the ticking thread if it is not running
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (clock.coarseNanoTime() - before <= 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertThat(clock.coarseNanoTime() - before).as("the coarse reading moved past a reading taken before").isPositive();
    }

    @Test
    void anInjectedClocksCoarseReadingIsItsOwnReadingByDefault() {
        ManualClock manual = new ManualClock();
        manual.advance(Duration.ofSeconds(3));
        assertThat(manual.coarseNanoTime()).isEqualTo(manual.nanoTime());
    }
}
