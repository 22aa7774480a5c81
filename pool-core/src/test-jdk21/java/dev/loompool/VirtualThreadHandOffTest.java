package dev.loompool;

import org.junit.jupiter.api.Test;

class VirtualThreadHandOffTest {

    @Test
    void releasesRacingWaitersNeverLeaveAVirtualThreadAsleepBesideAnIdleResource() throws Exception {
        HandOffRun.run(Thread.ofVirtual().factory(), 500, 4, 400_000);
    }

    @Test
    void aReleaserThatLeavesStillHandsItsResourceToTheWaiterThatJustArrived() throws Exception {
        HandOffRun.releaseAndLeave(Thread.ofVirtual().factory(), 20_000);
    }
}
