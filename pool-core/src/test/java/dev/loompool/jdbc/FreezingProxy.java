package dev.loompool.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of a real server that can turn into a black hole: once {@link #freeze()}d
 * it forwards nothing more in either direction and answers no new connection, but keeps every
 * socket open (a half-dead host, a stuck proxy, a network partition that drops packets). Or it
 * can forget the connections it carries ({@link #dropEstablished()}): their packets are swallowed
 * for good, their sockets stay open, and new connections go through as before (a NAT or firewall
 * that dropped idle flows without a reset, while the server is fine).
 */
final class FreezingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean frozen;
    private volatile boolean closed;
    /** Connections accepted so far, each numbered; those numbered below {@link #droppedBelow} are forgotten. */
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile int droppedBelow;

    FreezingProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "freezing-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    void freeze() {
        frozen = true;
    }

    void thaw() {
        frozen = false;
    }

    /**
     * Every connection accepted so far is forgotten, silently: what either side sends is swallowed
     * from now on and neither side hears of it (no FIN, no RST); connections made after this call
     * are forwarded as usual.
     */
    void dropEstablished() {
        droppedBelow = accepted.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                if (frozen) {
                    continue; // accepted, never answered
                }
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(upstream);
                int number = accepted.getAndIncrement();
                pump(client, upstream, number);
                pump(upstream, client, number);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to, int number) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    while (frozen && !closed) {
                        Thread.sleep(20); // hold the bytes: nothing gets through
                    }
                    if (number < droppedBelow) {
                        continue; // forgotten: swallowed, and the socket stays open
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
                if (number >= droppedBelow) {
                    to.shutdownOutput();
                }
            } catch (IOException | InterruptedException e) {
                // closed
            }
        }, "freezing-proxy-pump");
        t.setDaemon(true);
        t.start();
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
