package dev.loompool;

import org.junit.jupiter.api.Test;

class PlatformThreadHandOffTest {

    @Test
    void releasesRacingWaitersNeverLeaveAWaiterAsleepBesideAnIdleResource() throws Exception {
        HandOffRun.run(Thread::new, 12, 3, 400_000);
    }

    @Test
    void aReleaserThatLeavesStillHandsItsResourceToTheWaiterThatJustArrived() throws Exception {
        HandOffRun.releaseAndLeave(Thread::new, 20_000);
    }
}
