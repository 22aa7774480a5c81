package dev.loompool.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counts the round trips of one client-server conversation as a proxy between them sees it: a
 * round trip begins each time the client sends after the server last sent, and the client's first
 * send begins the first. So a client that sends a burst and waits for the answer before its next
 * burst counts one per burst, however many reads either burst takes, and a client that pipelines
 * (sends again before any answer came) counts only the wait it really had.
 *
 * <p>Each direction is read by its own thread: the side that last sent is one atomic reference,
 * and the count only grows.
 */
public final class RoundTrips {

    /** Who spoke last. */
    public enum Side {
        NOBODY,
        CLIENT,
        SERVER
    }

    private final AtomicReference<Side> last = new AtomicReference<>(Side.NOBODY);
    private final AtomicInteger count = new AtomicInteger();
    /** The start of each round trip's first bytes; only the client's reader adds to it. */
    private final List<String> starts = new CopyOnWriteArrayList<>();
    private static final int MAX_KEPT = 200;
    private static final int KEPT_BYTES = 160;

    /** The client sent bytes: a new round trip unless it was already the client's turn. */
    public void clientSent() {
        clientSent(null, 0);
    }

    /**
     * The client sent {@code length} bytes of {@code bytes}: a new round trip unless it was already
     * the client's turn. The first bytes of each round trip are kept for {@link #transcript}.
     */
    public void clientSent(byte[] bytes, int length) {
        if (last.getAndSet(Side.CLIENT) != Side.CLIENT) {
            count.incrementAndGet();
            if (starts.size() < MAX_KEPT) {
                starts.add(printable(bytes, length));
            }
        }
    }

    /** The server sent bytes: the client's next send waited for them. */
    public void serverSent() {
        last.set(Side.SERVER);
    }

    /** Round trips so far. */
    public int count() {
        return count.get();
    }

    /** Who sent last. */
    public Side lastSender() {
        return last.get();
    }

    /**
     * What the client sent first in each round trip, its printable characters (the SQL of a
     * query; the rest of a message shown as dots), one line each: which round trips a test did
     * not expect, when it fails.
     */
    public List<String> transcript() {
        return List.copyOf(starts);
    }

    private static String printable(byte[] bytes, int length) {
        if (bytes == null) {
            return "";
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(length, KEPT_BYTES); i++) {
            int b = bytes[i] & 0xff;
            s.append(b >= 0x20 && b < 0x7f ? (char) b : '.');
        }
        return s.toString();
    }
}
