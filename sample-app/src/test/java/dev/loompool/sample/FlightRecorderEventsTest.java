package dev.loompool.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The acceptance, in-process: the sample under load, recorded, shows each of loompool's
 * six Flight Recorder event kinds with the pool name {@code bank}. sample-app/record-sample does the
 * same with a real {@code -XX:StartFlightRecording} and {@code jfr print}. The demo leak endpoint
 * and the endpoint's write operations are on for this context only; its own H2 database keeps it
 * apart from the cached context of {@link H2EndToEndTest}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.datasource.url=jdbc:h2:mem:jfrdemo;DB_CLOSE_DELAY=-1",
        "management.endpoint.loompool.access=unrestricted",
        "sample.demo.leak-endpoint=true"})
class FlightRecorderEventsTest {

    private static final List<String> KINDS = List.of("dev.loompool.ConnectionWait", "dev.loompool.Connect",
            "dev.loompool.BreakerTransition", "dev.loompool.Reset", "dev.loompool.Reclaim", "dev.loompool.Pin");
    private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(60);

    @Value("${local.server.port}")
    int port;

    @Autowired
    LoomPoolDataSource dataSource;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aRecordingOfTheSampleUnderLoadShowsEachEventKindForThePoolBank() throws Exception {
        Set<String> seenForBank = ConcurrentHashMap.newKeySet();
        Map<String, Integer> seenOtherPools = new ConcurrentHashMap<>();
        try (RecordingStream rs = new RecordingStream()) {
            for (String kind : KINDS) {
                rs.enable(kind).withThreshold(Duration.ZERO);
                rs.onEvent(kind, e -> {
                    if ("bank".equals(e.getString("poolName"))) {
                        seenForBank.add(kind);
                    } else {
                        seenOtherPools.merge(e.getString("poolName"), 1, Integer::sum);
                    }
                });
            }
            rs.startAsync();

            // Connect: the pool reopens what this closes, up to min-size.
            dataSource.evictIdle();

            // ConnectionWait, deterministically: five open transactions hold all of max-size 5, so a
            // sixth request must queue; Reset and Pin (TRANSACTION) when they end without a commit.
            List<Connection> held = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Connection c = dataSource.getConnection();
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    st.execute("SELECT COUNT(*) FROM sample_account");
                }
                held.add(c);
            }
            CompletableFuture<HttpResponse<String>> sixth = send("GET", "/accounts", null);
            waitUntil("the sixth request to queue", () -> dataSource.getPool().stats().pending() >= 1);
            for (Connection c : held) {
                c.close();
            }
            assertThat(sixth.get(2, TimeUnit.MINUTES).statusCode()).isEqualTo(200);

            // Load above max-size: transfers (each one transaction), refused ones, slow reports.
            List<CompletableFuture<HttpResponse<String>>> load = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                long from = i % 5 + 1;
                String amount = i % 6 == 0 ? "1000000" : "1.25";
                load.add(i % 3 == 2 ? send("GET", "/accounts/" + from + "/report?delayMs=20", null)
                        : send("POST", "/transfers", "{\"from\":" + from + ",\"to\":" + (from % 5 + 1)
                                + ",\"amount\":" + amount + "}"));
            }
            for (CompletableFuture<HttpResponse<String>> f : load) {
                assertThat(f.get(2, TimeUnit.MINUTES).statusCode()).isIn(200, 422);
            }

            // BreakerTransition, both ways, through the endpoint's write operation.
            assertThat(send("POST", "/actuator/loompool/bank", "{\"state\":\"INACTIVE\"}").get(1, TimeUnit.MINUTES)
                    .statusCode()).isEqualTo(200);
            assertThat(send("POST", "/actuator/loompool/bank", "{\"state\":\"ACTIVE\"}").get(1, TimeUnit.MINUTES)
                    .statusCode()).isEqualTo(200);

            // Reclaim: the demo endpoint drops a connection inside a transaction; the collector finds it.
            assertThat(send("POST", "/demo/forgotten-connection", null).get(1, TimeUnit.MINUTES).statusCode())
                    .isEqualTo(200);
            waitUntil("the pool to reclaim the forgotten connection", () -> {
                System.gc();
                return dataSource.getReclaimedConnections() >= 1;
            });

            // The stream delivers in batches (about once a second): wait for the last ones, then say which are missing.
            awaitOrGiveUp(() -> seenForBank.containsAll(KINDS));
            assertThat(seenForBank).as("event kinds seen for pool bank (events of other pools: %s)", seenOtherPools)
                    .containsExactlyInAnyOrderElementsOf(KINDS);
        }
    }

    private CompletableFuture<HttpResponse<String>> send(String method, String path, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        request.method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(json));
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Polls {@code done} until it holds; fails after a generous bound. */
    private static void waitUntil(String what, BooleanSupplier done) throws InterruptedException {
        assertThat(awaitOrGiveUp(done)).as("waited 60 s for %s", what).isTrue();
    }

    /** Polls {@code done} until it holds or 60 s have passed; says whether it held. */
    private static boolean awaitOrGiveUp(BooleanSupplier done) throws InterruptedException {
        long start = System.nanoTime();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - start > BOUND_NANOS) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }
}
