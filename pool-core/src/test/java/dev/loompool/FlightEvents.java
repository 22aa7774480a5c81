package dev.loompool;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

/**
 * A Flight Recorder stream of loompool's events for one test: it enables the events it is given
 * by name (they are off by default) and collects them as the stream delivers them, about once a
 * second. A test asks for the events of its own pool, by name, and waits until they are there.
 */
public final class FlightEvents implements AutoCloseable {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final RecordingStream stream = new RecordingStream();
    private final List<RecordedEvent> events = new CopyOnWriteArrayList<>();

    public FlightEvents(String... names) {
        stream.setReuse(false); // else the stream refills one event object: a kept event would change under the test
        for (String name : names) {
            stream.enable(name).withThreshold(Duration.ZERO).withoutStackTrace();
            stream.onEvent(name, events::add);
        }
        stream.startAsync(); // the recording has started when this returns
    }

    /** The events named {@code name} of pool {@code pool}, once {@code done} holds for them; fails after 30 s. */
    public List<RecordedEvent> await(String name, String pool, Predicate<List<RecordedEvent>> done) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        for (;;) {
            List<RecordedEvent> mine = of(name, pool);
            if (done.test(mine)) {
                return mine;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for the " + name + " events of pool " + pool + "; got " + mine);
            }
            LockSupport.parkNanos(20_000_000);
        }
    }

    /** Waits until at least {@code count} events named {@code name} of pool {@code pool} arrived. */
    public List<RecordedEvent> await(String name, String pool, int count) {
        return await(name, pool, mine -> mine.size() >= count);
    }

    /** The events named {@code name} of pool {@code pool} delivered so far. */
    public List<RecordedEvent> of(String name, String pool) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name))
                .filter(e -> pool.equals(e.getString("poolName"))).toList();
    }

    @Override
    public void close() {
        stream.close();
    }
}
