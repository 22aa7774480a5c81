package dev.loompool.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** P10's reading of the pool's connect meter: absent only on 404, never on a failed read. */
class HttpLoadMetersTest {

    private HttpServer server;

    /** An actuator that answers each meter with the status and body given; 404 for the rest. */
    private HttpLoad actuator(Map<String, Object[]> answers) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/actuator/metrics/", exchange -> {
            String meter = exchange.getRequestURI().getPath().substring("/actuator/metrics/".length());
            Object[] a = answers.getOrDefault(meter, new Object[] {404, ""});
            byte[] body = ((String) a[1]).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders((Integer) a[0], body.length == 0 ? -1 : body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return new HttpLoad("http://127.0.0.1:" + server.getAddress().getPort(), List.of(HttpLoad.Call.get(1, "/")));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private static String timer(long count) {
        return "{\"name\":\"x\",\"measurements\":[{\"statistic\":\"COUNT\",\"value\":" + count + ".0},"
                + "{\"statistic\":\"TOTAL_TIME\",\"value\":0.5}],\"availableTags\":[]}";
    }

    @Test
    void eachPoolsMeterIsCounted() throws Exception {
        assertEquals(12, actuator(Map.of("db.client.connection.create_time", new Object[] {200, timer(12)})).poolConnects());
        stop();
        assertEquals(10, actuator(Map.of("hikaricp.connections.creation", new Object[] {200, timer(10)})).poolConnects());
    }

    @Test
    void noMeterAtAllIsMinusOne() throws Exception {
        assertEquals(-1, actuator(Map.of()).poolConnects());
    }

    @Test
    void aFailedReadIsAnErrorNotAnAbsentMeter() throws Exception {
        HttpLoad load = actuator(Map.of("db.client.connection.create_time", new Object[] {503, "busy"}));
        assertThrows(IOException.class, load::poolConnects);
    }
}
