package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/**
 * Waiting in the pool must unmount a virtual thread, never pin its carrier (DESIGN.md §3,
 * "Threads"). JFR reports every pinned park as {@code jdk.VirtualThreadPinned}; with the threshold
 * at zero, a single one fails the test.
 */
class VirtualThreadPinningTest {

    @Test
    void waitersUnmountInsteadOfPinningTheirCarrier() throws Exception {
        List<RecordedEvent> pinned = new CopyOnWriteArrayList<>();
        StubFactory factory = new StubFactory();
        try (RecordingStream jfr = new RecordingStream();
                Pool<Res> pool = Pool.builder(factory).destructor(factory).maxSize(2).build()) {
            jfr.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            jfr.onEvent("jdk.VirtualThreadPinned", pinned::add);
            jfr.startAsync();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    for (int j = 0; j < 20; j++) {
                        try (Lease<Res> lease = pool.acquire(Duration.ofMinutes(1))) {
                            Thread.sleep(0, 50_000); // hold it long enough that the others queue
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(pool.stats().inUse()).isZero();
            jfr.stop(); // flushes the events recorded so far
        }
        assertThat(pinned).as("pinned parks").isEmpty();
    }
}
