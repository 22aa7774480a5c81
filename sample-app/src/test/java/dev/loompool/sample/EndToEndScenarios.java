package dev.loompool.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every endpoint of the sample over real HTTP, against whichever database the subclass starts the
 * app on. Concurrency here is real load on a small pool; the assertions are invariants, not times.
 */
abstract class EndToEndScenarios {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Value("${local.server.port}")
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    JsonNode json(HttpResponse<String> response) {
        assertThat(response.statusCode()).as("status of %s: %s", response.uri(), response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    /** Runs {@code n} copies of {@code call} at once, each on its own client thread. */
    static <T> List<T> concurrently(int n, Callable<T> call) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(n);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(clients.submit(call));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(2, TimeUnit.MINUTES));
            }
            return results;
        } finally {
            clients.shutdownNow();
        }
    }

    BigDecimal total() throws Exception {
        return json(get("/accounts/total")).get("total").decimalValue();
    }

    @Test
    void fiftyConcurrentTransfersKeepTheSumOfTheBalances() throws Exception {
        BigDecimal before = total();
        List<Integer> statuses = concurrently(50, () -> {
            long from = ThreadLocalRandom.current().nextLong(1, 6);
            long to = from % 5 + 1;
            return post("/transfers", "{\"from\":" + from + ",\"to\":" + to + ",\"amount\":7.50}").statusCode();
        });
        assertThat(statuses).allMatch(s -> s == 200 || s == 422).contains(200);
        assertThat(total()).isEqualByComparingTo(before);
        assertThat(post("/transfers", "{\"from\":1,\"to\":2,\"amount\":1000000}").statusCode()).isEqualTo(422);
    }

    @Test
    void aHundredConcurrentSlowReadsShareFiveConnectionsWithoutTimeouts() throws Exception {
        AtomicInteger next = new AtomicInteger();
        List<JsonNode> reports = new ArrayList<>();
        for (HttpResponse<String> r : concurrently(100,
                () -> get("/accounts/" + (next.getAndIncrement() % 5 + 1) + "/report?delayMs=300"))) {
            reports.add(json(r));
        }
        assertThat(reports).hasSize(100).allSatisfy(r -> {
            assertThat(r.get("heldConnectionWhileWaiting").asBoolean()).isFalse();
            assertThat(r.get("waitedMillis").asLong()).isGreaterThanOrEqualTo(300);
        });
        JsonNode pool = json(get("/actuator/loompool/bank"));
        assertThat(pool.get("settings").get("maxSize").asInt()).isEqualTo(5);
        assertThat(pool.get("total").asInt()).isLessThanOrEqualTo(5);
        JsonNode timeouts = json(get("/actuator/metrics/db.client.connection.timeouts"));
        assertThat(timeouts.get("measurements").get(0).get("value").asDouble()).isZero();
    }

    @Test
    void everyMetricTheGrafanaDashboardQueriesIsScraped() throws Exception {
        String dashboard = Files.readString(Path.of("grafana/loompool-dashboard.json"));
        // Each selector: the metric, and the label it selects the pool by, as the scrape spells them.
        Matcher selectors = Pattern.compile("\\b((?:db_client_connection|loompool)_[a-z_]+)\\{([a-z_]+)=")
                .matcher(dashboard);
        String scrape = get("/actuator/prometheus").body();
        int checked = 0;
        while (selectors.find()) {
            assertThat(scrape).as("dashboard metric %s", selectors.group(1)).contains(selectors.group(1) + "{");
            assertThat(scrape).as("dashboard label %s", selectors.group(2))
                    .containsPattern(Pattern.quote(selectors.group(1)) + "\\{[^}]*\\b" + selectors.group(2) + "=");
            checked++;
        }
        assertThat(checked).isGreaterThan(10);
    }

    @Test
    void theListAndTheLoompoolEndpointShowTheAccountsAndTheCounts() throws Exception {
        JsonNode accounts = json(get("/accounts"));
        assertThat(accounts.size()).isEqualTo(5);
        JsonNode pools = json(get("/actuator/loompool"));
        JsonNode bank = pools.get("pools").get("bank");
        assertThat(bank.get("circuitBreaker").asString()).isEqualTo("ACTIVE");
        assertThat(bank.has("total") && bank.has("idle") && bank.has("inUse") && bank.has("pending")).isTrue();
        JsonNode health = json(get("/actuator/health"));
        assertThat(health.get("components").get("loompool").get("status").asString()).isEqualTo("UP");
        assertThat(get("/actuator/prometheus").body()).contains("db_client_connection_count{db_client_connection_pool_name=\"bank\",db_client_connection_state=\"idle\"}");
        assertThat(post("/actuator/loompool/bank", "{\"state\":\"INACTIVE\"}").statusCode())
                .as("write operations are off by default").isNotEqualTo(200);
        assertThat(post("/actuator/loompool/bank/limits", "{\"maxSize\":1}").statusCode())
                .as("changing the limits too").isNotEqualTo(200);
        assertThat(json(get("/actuator/loompool/bank")).get("settings").get("maxSize").asInt()).isEqualTo(5);
    }
}
