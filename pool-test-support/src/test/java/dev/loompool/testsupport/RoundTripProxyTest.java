package dev.loompool.testsupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The round trips the proxy counts are the waits a client has: one per burst it sends after an
 * answer, none for a burst split over several reads or for bytes sent back to back.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RoundTripProxyTest {

    @Test
    void aConversationCountsOneRoundTripPerClientBurstThatFollowsTheServer() {
        RoundTrips r = new RoundTrips();
        assertEquals(0, r.count());
        r.clientSent();
        r.clientSent(); // the same burst, read in two pieces
        assertEquals(1, r.count());
        r.serverSent();
        r.serverSent();
        assertEquals(1, r.count());
        r.clientSent();
        assertEquals(2, r.count());
        r.serverSent();
        r.clientSent();
        r.serverSent();
        r.clientSent();
        assertEquals(4, r.count());
        assertEquals(RoundTrips.Side.CLIENT, r.lastSender());
    }

    @Test
    void aServerThatSpeaksFirstDoesNotMakeARoundTripOfItsOwn() {
        RoundTrips r = new RoundTrips(); // MySQL's handshake: the server greets, the client answers
        r.serverSent();
        assertEquals(0, r.count());
        r.clientSent("\0\1SELECT 1".getBytes(StandardCharsets.US_ASCII), 10);
        assertEquals(1, r.count());
        assertEquals(List.of("..SELECT 1"), r.transcript());
        r.serverSent();
        r.serverSent(); // an unsolicited message after the answer: no wait of the client's
        assertEquals(1, r.count());
    }

    @Test
    void aClientThatWaitsForEveryAnswerCountsOneRoundTripPerRequestThroughTheProxy() throws Exception {
        try (EchoServer echo = new EchoServer();
                RoundTripProxy proxy = new RoundTripProxy(echo.port(), Duration.ofMillis(5));
                Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            DataInputStream in = new DataInputStream(client.getInputStream());
            OutputStream out = client.getOutputStream();
            for (int i = 0; i < 4; i++) {
                byte[] request = ("request " + i).getBytes(StandardCharsets.US_ASCII);
                out.write(request);
                out.flush();
                byte[] answer = new byte[request.length];
                in.readFully(answer);
                assertArrayEquals(request, answer);
            }
            assertEquals(1, proxy.connections());
            assertEquals(4, proxy.roundTrips());
            assertEquals(4, proxy.conversations().get(0).count());
            assertEquals(List.of("request 0", "request 1", "request 2", "request 3"),
                    proxy.conversations().get(0).transcript());
        }
    }

    @Test
    void eachDirectionIsHeldForTheDelay() throws Exception {
        try (EchoServer echo = new EchoServer();
                RoundTripProxy proxy = new RoundTripProxy(echo.port(), Duration.ofMillis(40));
                Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            long began = System.nanoTime();
            client.getOutputStream().write('x');
            client.getOutputStream().flush();
            assertEquals('x', client.getInputStream().read());
            // a lower bound only: the delay is a floor, never exceeded by chance in the other direction
            assertTrue(System.nanoTime() - began >= TimeUnit.MILLISECONDS.toNanos(80),
                    "an answer through a proxy that delays each way by 40 ms came back sooner than 80 ms");
        }
    }

    @Test
    void theEndOfAStreamIsPassedOn() throws Exception {
        try (EchoServer echo = new EchoServer();
                RoundTripProxy proxy = new RoundTripProxy(echo.port(), Duration.ofMillis(1));
                Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            client.getOutputStream().write("bye".getBytes(StandardCharsets.US_ASCII));
            client.shutdownOutput(); // the echo server closes its side when it reads the end
            InputStream in = client.getInputStream();
            assertArrayEquals("bye".getBytes(StandardCharsets.US_ASCII), in.readNBytes(3));
            assertEquals(-1, in.read());
        }
    }

    @Test
    void aUrlPointsAtTheProxyInsteadOfTheServer() throws Exception {
        try (RoundTripProxy proxy = new RoundTripProxy(5432, Duration.ZERO)) {
            assertEquals("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test?user=postgres",
                    proxy.jdbcUrl("jdbc:postgresql://localhost:5432/test?user=postgres"));
            assertThrows(IllegalArgumentException.class, () -> proxy.jdbcUrl("jdbc:h2:mem:x"));
        }
    }

    /** Echoes what each connection sends, on the loopback interface, and closes when the client's stream ends. */
    private static final class EchoServer implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

        EchoServer() throws IOException {
            Thread t = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        Thread echo = new Thread(() -> {
                            try (s) {
                                s.getInputStream().transferTo(s.getOutputStream());
                            } catch (IOException e) {
                                // the test ended
                            }
                        });
                        echo.setDaemon(true);
                        echo.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
