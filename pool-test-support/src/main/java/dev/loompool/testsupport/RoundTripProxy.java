package dev.loompool.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ObjIntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP proxy on the loopback interface in front of a server on the loopback interface, which
 * holds every byte for a fixed delay in each direction (a link with that one-way latency) and
 * counts the round trips of every connection it carries ({@link RoundTrips}). What a client costs
 * over a slow link is then a number a test can assert, not a time: how many times it waited for
 * the server.
 *
 * <p>The delay does not slow a stream down: each chunk read is written on when its own delay is
 * up, in order, by a writer of its own per direction. Bytes a client sends back to back reach the
 * server before any answer could reach the proxy, so a delay of a few milliseconds also keeps the
 * count from splitting one burst of the client's in two.
 */
public final class RoundTripProxy implements AutoCloseable {

    private static final Pattern HOST_PORT = Pattern.compile("//[^/?]+/");

    private final ServerSocket server;
    private final int targetPort;
    private final long delayNanos;
    private final List<RoundTrips> conversations = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /** A proxy to {@code targetPort} on the loopback interface, delaying each direction by {@code delayEachWay}. */
    public RoundTripProxy(int targetPort, Duration delayEachWay) throws IOException {
        if (delayEachWay.isNegative()) {
            throw new IllegalArgumentException("delayEachWay must not be negative, was " + delayEachWay);
        }
        this.targetPort = targetPort;
        this.delayNanos = delayEachWay.toNanos();
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon(this::accept, "round-trip-proxy-accept").start();
    }

    /** The port it listens on, on the loopback interface. */
    public int port() {
        return server.getLocalPort();
    }

    /** {@code jdbcUrl} with its {@code //host:port/} replaced by this proxy's. */
    public String jdbcUrl(String jdbcUrl) {
        Matcher hostPort = HOST_PORT.matcher(jdbcUrl);
        if (!hostPort.find()) {
            throw new IllegalArgumentException("no //host:port/ in the URL to point at the proxy");
        }
        return hostPort.replaceFirst("//127.0.0.1:" + port() + "/");
    }

    /** The round trips of every connection carried so far, summed. */
    public int roundTrips() {
        int sum = 0;
        for (RoundTrips r : conversations) {
            sum += r.count();
        }
        return sum;
    }

    /** How many connections it accepted so far. */
    public int connections() {
        return conversations.size();
    }

    /** Every connection's {@link RoundTrips#transcript}, one line per round trip, for a failure's message. */
    public String transcript() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < conversations.size(); i++) {
            s.append("connection ").append(i + 1).append(":\n");
            for (String line : conversations.get(i).transcript()) {
                s.append("  ").append(line).append('\n');
            }
        }
        return s.toString();
    }

    /** Each connection's round trips, in the order they were accepted. */
    public List<RoundTrips> conversations() {
        return List.copyOf(conversations);
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(upstream);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                RoundTrips counted = new RoundTrips();
                conversations.add(counted);
                forward(client, upstream, counted::clientSent, "client");
                forward(upstream, client, (bytes, n) -> counted.serverSent(), "server");
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    /** One direction: a reader that notes each chunk and a writer that sends it on once its delay is up. */
    private void forward(Socket from, Socket to, ObjIntConsumer<byte[]> noted, String sender) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        BlockingQueue<Chunk> due = new LinkedBlockingQueue<>();
        daemon(() -> {
            byte[] buffer = new byte[16384];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    noted.accept(buffer, n);
                    due.add(new Chunk(System.nanoTime() + delayNanos, Arrays.copyOf(buffer, n)));
                }
            } catch (IOException e) {
                // the socket closed: the end of the stream as well
            }
            due.add(new Chunk(System.nanoTime() + delayNanos, null));
        }, "round-trip-proxy-read-" + sender).start();
        daemon(() -> {
            try {
                while (true) {
                    Chunk c = due.take();
                    for (long wait; (wait = c.dueAt - System.nanoTime()) > 0; ) {
                        LockSupport.parkNanos(wait);
                    }
                    if (c.bytes == null) {
                        to.shutdownOutput();
                        return;
                    }
                    out.write(c.bytes);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // closed
            }
        }, "round-trip-proxy-write-" + sender).start();
    }

    /** Bytes to send on at {@code dueAt}; none for the end of the stream. */
    private record Chunk(long dueAt, byte[] bytes) {
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
