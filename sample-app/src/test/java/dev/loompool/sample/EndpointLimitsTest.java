package dev.loompool.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The running pool's limits changed over HTTP, as an operator would with write access granted
 * ({@code management.endpoint.loompool.access=unrestricted}); the sample's pool is max 5.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        // Its own database: the other tests' cached context keeps the sample's, seeded already.
        properties = {"management.endpoint.loompool.access=unrestricted", "spring.datasource.url=jdbc:h2:mem:limits;DB_CLOSE_DELAY=-1"})
class EndpointLimitsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Value("${local.server.port}")
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> send(String method, String path, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        request = json == null ? request.method(method, HttpRequest.BodyPublishers.noBody())
                : request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode settings() throws Exception {
        HttpResponse<String> pool = send("GET", "/actuator/loompool/bank", null);
        assertThat(pool.statusCode()).isEqualTo(200);
        return JSON.readTree(pool.body()).get("settings");
    }

    @Test
    void aPostChangesTheRunningPoolsLimitsAndARefusedValueIsA400ThatChangesNothing() throws Exception {
        HttpResponse<String> changed = send("POST", "/actuator/loompool/bank/limits",
                "{\"maxSize\":3,\"minSize\":1,\"acquireTimeout\":\"2s\",\"leakDetectionThreshold\":\"10000\"}");
        assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
        assertThat(JSON.readTree(changed.body()).get("maxSize").asInt()).isEqualTo(3);
        assertThat(settings().get("maxSize").asInt()).isEqualTo(3);
        assertThat(settings().get("acquireTimeout").asString()).isEqualTo("PT2S");
        assertThat(JSON.readTree(send("GET", "/actuator/loompool/bank", null).body()).get("total").asInt())
                .as("the running pool keeps to the new maximum").isLessThanOrEqualTo(3);

        HttpResponse<String> refused = send("POST", "/actuator/loompool/bank/limits", "{\"minSize\":4,\"acquireTimeout\":\"1s\"}");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
        assertThat(send("POST", "/actuator/loompool/bank/limits", "{\"acquireTimeout\":\"soon\"}").statusCode()).isEqualTo(400);
        assertThat(settings().get("acquireTimeout").asString()).as("nothing of a refused change applied").isEqualTo("PT2S");

        // Both sizes at once, from above the old maximum: applied in the order that stays valid.
        assertThat(send("POST", "/actuator/loompool/bank/limits", "{\"maxSize\":8,\"minSize\":6}").statusCode()).isEqualTo(200);
        assertThat(settings().get("minSize").asInt()).isEqualTo(6);
        assertThat(send("POST", "/actuator/loompool/bank/limits", "{\"maxSize\":5,\"minSize\":1}").statusCode()).isEqualTo(200);
        assertThat(settings().get("maxSize").asInt()).isEqualTo(5);
    }
}
