package dev.loompool.bench.chaos;

import static dev.loompool.CircuitBreakerState.ACTIVE;
import static dev.loompool.CircuitBreakerState.INACTIVE;
import static dev.loompool.CircuitBreakerState.RECOVERING;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The arithmetic the chaos suite's verdicts rest on, on a clock the test moves. */
class TimelineTest {

    private final AtomicLong clock = new AtomicLong();
    private final Timeline timeline = new Timeline(clock::get);

    private void at(long millis) {
        clock.set(millis);
    }

    @Test
    void anOpeningWhileTheServerIsDownIsNotAnOpeningWhileItAccepted() {
        at(15_000);
        timeline.record(Timeline.Kind.SERVER_DOWN, "down");
        at(15_040);
        timeline.breaker(ACTIVE, INACTIVE);
        at(15_200);
        timeline.record(Timeline.Kind.SERVER_UP, "up");
        at(20_040);
        timeline.breaker(INACTIVE, RECOVERING);
        timeline.breaker(RECOVERING, ACTIVE);
        at(40_000);
        timeline.end();

        assertEquals(List.of(), timeline.openingsWhileServerAccepted());
        assertEquals(5_000, timeline.breakerOpenMillis());
        assertEquals(20_040 - 15_200, timeline.breakerOpenWhileServerAcceptedMillis());
    }

    @Test
    void anOpeningAfterTheServerCameBackIsReported() {
        at(15_000);
        timeline.record(Timeline.Kind.SERVER_DOWN, "down");
        at(15_200);
        timeline.record(Timeline.Kind.SERVER_UP, "up");
        at(15_201);
        timeline.breaker(ACTIVE, INACTIVE);
        at(30_000);
        timeline.breaker(INACTIVE, RECOVERING);
        timeline.breaker(RECOVERING, INACTIVE);

        List<Timeline.Event> openings = timeline.openingsWhileServerAccepted();
        assertEquals(2, openings.size());
        assertEquals(15_201, openings.get(0).atMillis());
    }

    @Test
    void aBreakerStillOpenAtTheEndCountsUntilTheEnd() {
        at(1_000);
        timeline.breaker(ACTIVE, INACTIVE);
        at(3_000);
        timeline.end();
        at(9_000);

        assertEquals(2_000, timeline.breakerOpenMillis());
        assertEquals(2_000, timeline.breakerOpenWhileServerAcceptedMillis());
    }

    @Test
    void aRestartThatNeverCameBackIsDownUntilTheEnd() {
        at(5_000);
        timeline.record(Timeline.Kind.SERVER_DOWN, "down");
        at(8_000);
        timeline.end();

        assertEquals(List.of(new Timeline.Window(5_000, 8_000)), timeline.serverDown());
    }
}
