package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The documentation names only what exists, and everything that exists is documented: every
 * {@code loompool.*} key, meter, Flight Recorder event and endpoint path in the README and
 * {@code docs/}, checked against the configuration metadata, the meter enums, {@code loompool.jfc}
 * and the endpoint's operations; and the README's test command is the one CI runs.
 */
class DocumentationTest {

    private static final Path ROOT = Path.of("..");
    /** Keys the docs name on purpose as wrong: the misspellings and misplacements the start refuses. */
    private static final Set<String> WRONG_ON_PURPOSE = Set.of("loompool.max-szie", "loompool.circuit-breaker.failure-treshold",
            "loompool.circuit-breaker-failure-threshold", "loompool.password", "loompool.jdbc-url", "loompool.minimum-idle");
    /** Not keys: file names of the Flight Recorder settings and recordings. */
    private static final Set<String> FILES = Set.of("loompool.jfc", "loompool.jfr");
    private static final Pattern KEY = Pattern.compile("(?<![\\w./-])loompool\\.[A-Za-z][A-Za-z0-9.\\-]*[A-Za-z0-9]");
    private static final Pattern EVENT = Pattern.compile("dev\\.loompool\\.([A-Z][A-Za-z]+)");
    private static final Pattern ENDPOINT = Pattern.compile("/actuator/loompool(/[^\\s`)|\"]*)?");

    private static String docs() throws IOException {
        StringBuilder all = new StringBuilder(Files.readString(ROOT.resolve("README.md")));
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            for (Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                all.append('\n').append(Files.readString(page));
            }
        }
        return all.toString();
    }

    private static Set<String> found(Pattern pattern, String text, int group) {
        Set<String> found = new TreeSet<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.group(group) == null ? "" : m.group(group));
        }
        return found;
    }

    private static Set<String> meterNames() {
        Set<String> meters = new TreeSet<>();
        Arrays.stream(LoomPoolMeter.values()).map(LoomPoolMeter::meterName).forEach(meters::add);
        Arrays.stream(HikariMeter.values()).map(HikariMeter::meterName).forEach(meters::add);
        return meters;
    }

    /** Whether the start takes {@code name} as a key, in the form written (relaxed forms included). */
    private static boolean aKey(String name) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("docs", Map.of(name, "1")));
        try {
            UnknownKeys.check(environment);
            return true;
        } catch (LoomPoolStartupException e) {
            return false;
        }
    }

    @Test
    void everyLoompoolNameInTheDocsIsAKeyOrAMeter() throws IOException {
        Set<String> meters = meterNames();
        Set<String> keys = UnknownKeys.knownNames();
        List<String> unknown = new ArrayList<>();
        for (String name : found(KEY, docs(), 0)) {
            boolean meter = meters.contains(name) || meters.stream().anyMatch(m -> m.startsWith(name + "."))
                    || name.endsWith(".max") && meters.contains(name.substring(0, name.length() - 4));
            boolean group = keys.stream().anyMatch(k -> k.startsWith(name + "."));
            if (!meter && !group && !FILES.contains(name) && !WRONG_ON_PURPOSE.contains(name) && !aKey(name)) {
                unknown.add(name);
            }
        }
        assertThat(unknown).as("names in the docs that are neither a key nor a meter").isEmpty();
        assertThat(WRONG_ON_PURPOSE).as("a wrong example must stay wrong").noneMatch(DocumentationTest::aKey);
    }

    @Test
    void everyKeyIsInTheConfigurationPage() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/configuration.md"));
        assertThat(UnknownKeys.knownNames()).as("keys missing from docs/configuration.md")
                .allMatch(key -> page.contains("`" + key + "`") || page.contains("`" + key + ".*`"));
    }

    @Test
    void everyMeterIsInTheOperationsPage() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/operations.md"));
        assertThat(meterNames()).as("meters missing from docs/operations.md").allMatch(m -> page.contains("`" + m));
    }

    @Test
    void theFlightRecorderEventsInTheDocsAreTheOnesThePoolRecords() throws IOException {
        Set<String> recorded;
        try (InputStream jfc = getClass().getClassLoader().getResourceAsStream("dev/loompool/loompool.jfc")) {
            assertThat(jfc).as("loompool.jfc in pool-core").isNotNull();
            recorded = found(Pattern.compile("name=\"dev\\.loompool\\.([A-Z][A-Za-z]+)\""),
                    new String(jfc.readAllBytes(), StandardCharsets.UTF_8), 1);
        }
        assertThat(recorded).isNotEmpty();
        assertThat(found(EVENT, docs(), 1)).as("events named in the docs").isSubsetOf(recorded);
        String page = Files.readString(ROOT.resolve("docs/operations.md"));
        assertThat(recorded).as("events missing from docs/operations.md").allMatch(e -> page.contains("dev.loompool." + e));
    }

    /**
     * The endpoint's shape: its list, a pool by name, and under a pool the two sub-resources its
     * operations take as a second selector; each documented, and no other path named.
     */
    @Test
    void theEndpointPathsInTheDocsAreTheEndpointsOperations() throws IOException {
        Set<String> operations = new TreeSet<>();
        for (Method m : LoomPoolEndpoint.class.getDeclaredMethods()) {
            long selectors = Arrays.stream(m.getParameters()).filter(p -> p.isAnnotationPresent(Selector.class)).count();
            String verb = m.isAnnotationPresent(ReadOperation.class) ? "GET" : m.isAnnotationPresent(WriteOperation.class)
                    ? "POST" : m.isAnnotationPresent(DeleteOperation.class) ? "DELETE" : null;
            if (verb != null) {
                operations.add(verb + " " + selectors);
            }
        }
        assertThat(operations).containsExactlyInAnyOrder("GET 0", "GET 1", "POST 1", "POST 2", "DELETE 2");
        String page = Files.readString(ROOT.resolve("docs/operations.md"));
        for (String documented : List.of("GET /actuator/loompool`", "GET /actuator/loompool/{name}`",
                "POST /actuator/loompool/{name}` with", "POST /actuator/loompool/{name}/limits`",
                "DELETE /actuator/loompool/{name}/idle`")) {
            assertThat(page).contains("`" + documented);
        }
        List<String> otherPaths = found(ENDPOINT, docs(), 1).stream()
                .filter(rest -> !rest.isEmpty() && !rest.matches("/[^/]+(/(idle|limits))?")).collect(Collectors.toList());
        assertThat(otherPaths).as("endpoint paths the endpoint does not have").isEmpty();
    }

    /** The README's two commands: the test command is the one .ci/run runs; the sample's builds the app it names. */
    @Test
    void theReadmesCommandsAreTheOnesCiRuns() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        String twoCommands = readme.substring(readme.indexOf("## Two commands"), readme.indexOf("\n## ", readme.indexOf("## Two commands") + 1));
        List<String> commands = found(Pattern.compile("```bash\\n(.*?)\\n```", Pattern.DOTALL), twoCommands, 1)
                .stream().toList();
        assertThat(commands).hasSize(2);
        assertThat(readme.indexOf("## Two commands")).as("within the README's first 120 lines")
                .isLessThan(String.join("\n", readme.lines().limit(120).toList()).length());
        String ci = Files.readString(ROOT.resolve(".ci/run"));
        assertThat(commands).contains("./mvnw verify");
        assertThat(ci).contains("run_tests() { ./mvnw verify; }");
        assertThat(commands).anyMatch(c -> c.startsWith("./mvnw -pl sample-app -am") && c.endsWith("spring-boot:run"));
    }

    @Test
    void theReadmeStaysShort() throws IOException {
        assertThat(Files.readAllLines(ROOT.resolve("README.md"))).as("README lines").hasSizeLessThanOrEqualTo(300);
        try (Stream<Path> root = Files.list(ROOT)) {
            assertThat(root.map(p -> p.getFileName().toString()).filter(n -> n.matches("README-.*\\.md")))
                    .as("drafts at the root").isEmpty();
        }
    }

    /** The README's Modules table names every folder at the root, and only those. */
    @Test
    void theModulesTableListsEveryFolder() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int start = readme.indexOf("## Modules");
        String table = readme.substring(start, readme.indexOf("\n## ", start + 1));
        Set<String> listed = found(Pattern.compile("(?m)^\\| `([\\w.-]+)`"), table, 1);
        Set<String> folders;
        try (Stream<Path> root = Files.list(ROOT)) {
            folders = root.filter(Files::isDirectory).map(p -> p.getFileName().toString())
                    .filter(n -> !n.startsWith(".") && !n.equals("target"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        assertThat(listed).isEqualTo(folders);
    }
}
