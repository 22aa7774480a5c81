package dev.loompool.sample;

import org.springframework.boot.test.context.SpringBootTest;

/** The sample as a newcomer runs it: embedded H2. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class H2EndToEndTest extends EndToEndScenarios {
}
