package dev.loompool.bench.chaos;

import dev.loompool.CircuitBreakerState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;

/**
 * What happened during one pool's run, in milliseconds since its start: the server going down and
 * coming back, the backends killed, and the breaker's transitions. Written by several threads.
 */
final class Timeline {

    enum Kind {
        /** The restart began: from here the server refuses new connections. */
        SERVER_DOWN,
        /** pg_ctl returned: the server accepts connections again. */
        SERVER_UP,
        BACKEND_KILLED,
        BREAKER
    }

    record Event(long atMillis, Kind kind, String detail, CircuitBreakerState to) {
        @Override
        public String toString() {
            return String.format("%7.3f s  %s", atMillis / 1000.0, detail);
        }
    }

    /** An interval of the run, {@code [from, to]} in milliseconds. */
    record Window(long from, long to) {
        boolean contains(long t) {
            return t >= from && t <= to;
        }

        long overlap(long a, long b) {
            return Math.max(0, Math.min(to, b) - Math.max(from, a));
        }
    }

    private final LongSupplier clock;
    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    private volatile long endMillis = -1;

    /** A timeline that starts now. */
    Timeline() {
        long startNanos = System.nanoTime();
        this.clock = () -> (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** A timeline on the given clock (milliseconds since the start), for tests. */
    Timeline(LongSupplier clock) {
        this.clock = clock;
    }

    long now() {
        return clock.getAsLong();
    }

    void record(Kind kind, String detail) {
        events.add(new Event(now(), kind, detail, null));
    }

    void breaker(CircuitBreakerState from, CircuitBreakerState to) {
        events.add(new Event(now(), Kind.BREAKER, "breaker " + from + " -> " + to, to));
    }

    /** The load stopped: open intervals end here. */
    void end() {
        endMillis = now();
    }

    long endMillis() {
        return endMillis < 0 ? now() : endMillis;
    }

    List<Event> events() {
        List<Event> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(Event::atMillis));
        return sorted;
    }

    List<Event> events(Kind kind) {
        return events().stream().filter(e -> e.kind() == kind).toList();
    }

    /** The windows in which the server did not accept connections (a restart in progress). */
    List<Window> serverDown() {
        List<Window> windows = new ArrayList<>();
        long downSince = -1;
        for (Event e : events()) {
            if (e.kind() == Kind.SERVER_DOWN) {
                downSince = e.atMillis();
            } else if (e.kind() == Kind.SERVER_UP && downSince >= 0) {
                windows.add(new Window(downSince, e.atMillis()));
                downSince = -1;
            }
        }
        if (downSince >= 0) {
            windows.add(new Window(downSince, endMillis()));
        }
        return windows;
    }

    /** The windows in which the breaker was INACTIVE (open: failing fast). */
    List<Window> breakerOpen() {
        List<Window> windows = new ArrayList<>();
        long openSince = -1;
        for (Event e : events(Kind.BREAKER)) {
            if (e.to() == CircuitBreakerState.INACTIVE && openSince < 0) {
                openSince = e.atMillis();
            } else if (e.to() != CircuitBreakerState.INACTIVE && openSince >= 0) {
                windows.add(new Window(openSince, e.atMillis()));
                openSince = -1;
            }
        }
        if (openSince >= 0) {
            windows.add(new Window(openSince, endMillis()));
        }
        return windows;
    }

    /** Transitions to INACTIVE outside every server-down window: the breaker opened on a healthy server. */
    List<Event> openingsWhileServerAccepted() {
        List<Window> down = serverDown();
        return events(Kind.BREAKER).stream()
                .filter(e -> e.to() == CircuitBreakerState.INACTIVE)
                .filter(e -> down.stream().noneMatch(w -> w.contains(e.atMillis())))
                .toList();
    }

    long breakerOpenMillis() {
        return breakerOpen().stream().mapToLong(w -> w.to() - w.from()).sum();
    }

    /** Milliseconds the breaker was INACTIVE while the server accepted connections. */
    long breakerOpenWhileServerAcceptedMillis() {
        List<Window> down = serverDown();
        long total = 0;
        for (Window open : breakerOpen()) {
            long length = open.to() - open.from();
            for (Window d : down) {
                length -= d.overlap(open.from(), open.to());
            }
            total += length;
        }
        return total;
    }
}
