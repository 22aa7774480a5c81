package dev.loompool;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * pool-core's layering (docs/ARCHITECTURE.md), checked in pool-core's own build on its compiled
 * main classes: core ({@code dev.loompool}, its engine {@code dev.loompool.engine}) &lt;- JDBC
 * ({@code dev.loompool.jdbc}, its engine the rooms of {@code dev.loompool.jdbc.internal}); the public API is a
 * known list, each type with the reason it is public; an engine is entered through its doors only
 * (the core's engine from its API, and without a Lease per acquire from the JDBC engine); the JDBC
 * engine works from its frozen settings, never from the JavaBean, and its rooms import no cycle;
 * hierarchies are shallow and never call down. The Spring layer's rules are the autoconfigure
 * module's (its ArchitectureTest).
 */
class ArchitectureTest {

    /** The JavaBean the engine must never name: it works from {@code PoolConfig}, read once at start. */
    private static final Set<String> JAVA_BEAN = Set.of("dev.loompool.jdbc.LoomPoolDataSource",
            "dev.loompool.jdbc.DataSourceSettings");

    /** Every public type of the core and the JDBC layer, and who it is public for. */
    private static final Map<String, String> PUBLIC_API = new TreeMap<>(Map.ofEntries(
            Map.entry("dev.loompool.Pool", "user: the generic pool (DESIGN.md §3)"),
            Map.entry("dev.loompool.PoolBuilder", "user: Pool.builder(...)"),
            Map.entry("dev.loompool.Lease", "user: what acquire() returns"),
            Map.entry("dev.loompool.PoolStats", "user: Pool.stats()"),
            Map.entry("dev.loompool.CircuitBreaker", "user: the breaker of every pool"),
            Map.entry("dev.loompool.CircuitBreakerState", "user: CircuitBreaker.state()"),
            Map.entry("dev.loompool.CircuitBreakerStrategy", "user SPI: a breaker strategy"),
            Map.entry("dev.loompool.ResourceFactory", "user SPI: builder callback"),
            Map.entry("dev.loompool.ResourceDestructor", "user SPI: builder callback"),
            Map.entry("dev.loompool.ResourceCheck", "user SPI: builder callback"),
            Map.entry("dev.loompool.PoolListener", "user SPI: the listener the metrics bind to (DESIGN.md §2)"),
            Map.entry("dev.loompool.DestroyReason", "user SPI: PoolListener.onDestroyed"),
            Map.entry("dev.loompool.PoolClock", "user SPI: an injectable clock"),
            Map.entry("dev.loompool.PoolException", "user: the pool's errors"),
            Map.entry("dev.loompool.PoolClosedException", "user: the pool's errors"),
            Map.entry("dev.loompool.AcquireTimeoutException", "user: the pool's errors"),
            Map.entry("dev.loompool.ServiceUnavailableException", "user: the pool's errors"),
            Map.entry("dev.loompool.jdbc.LoomPoolDataSource", "user: the DataSource (DESIGN.md §4)"),
            Map.entry("dev.loompool.jdbc.DataSourceSettings", "user: its JavaBean settings, as HikariConfig"),
            Map.entry("dev.loompool.jdbc.LoomConnection", "user: connection.unwrap(LoomConnection.class)"),
            Map.entry("dev.loompool.jdbc.ReleaseMode", "user: setReleaseMode"),
            Map.entry("dev.loompool.jdbc.ServerPooler", "user: setServerPooler (DESIGN.md §7)"),
            Map.entry("dev.loompool.jdbc.PinReason", "user: LoomConnection.pinReasons()"),
            Map.entry("dev.loompool.jdbc.Credentials", "user: setCredentialsSupplier, for rotation"),
            Map.entry("dev.loompool.jdbc.HandleInfo", "user: LoomPoolDataSource.getBoundHandles()"),
            Map.entry("dev.loompool.jdbc.PinTime", "user: LoomPoolDataSource.getPinTimes(), the pin-duration meters"),
            Map.entry("dev.loompool.jdbc.LoomPoolMXBean", "user: the pool's JMX view (registerMbeans); JMX introspects public interfaces only"),
            Map.entry("dev.loompool.jdbc.BindObserver", "framework SPI: pin for a framework's transaction")));


    /** The public types of the engines: each is the one door its API enters the engine through. */
    private static final Map<String, String> ENGINE_DOORS = new TreeMap<>(Map.ofEntries(
            Map.entry("dev.loompool.engine.PoolSettings", "PoolBuilder.build() hands its settings to the engine"),
            Map.entry("dev.loompool.engine.DirectPool", "the JDBC engine's acquire without a Lease per cycle (P6)"),
            Map.entry("dev.loompool.engine.Entry", "what DirectPool lends: the pool's record of a resource"),
            Map.entry("dev.loompool.engine.PrewarmPolicy", "the JDBC engine's factory tells the start its "
                    + "initializationFailTimeout without a public PoolBuilder setting"),
            Map.entry("dev.loompool.engine.HandOutCheck", "the JDBC engine's hand-out validation is told its "
                    + "caller's deadline, to leave it time for a connect, without a public PoolBuilder setting"),
            Map.entry("dev.loompool.engine.CreateTimedOut", "a caller's create timed out: what its time went on, "
                    + "for the JDBC engine's error"),
            Map.entry("dev.loompool.jdbc.internal.lifecycle.StartedPool", "LoomPoolDataSource runs its pool through it"),
            Map.entry("dev.loompool.jdbc.internal.lifecycle.PoolConfig", "the settings LoomPoolDataSource reads once at start, "
                    + "which the engine works from (STYLE.md, \"Configuration is read once\")")));


    /**
     * The JDBC engine's rooms, lowest first (docs/ARCHITECTURE.md): the SQL classifier, then what
     * loompool knows of each driver, then the pool of physical connections, then the handles, then
     * the pool's lifecycle (its start, the started pool, the reclaimer). A room uses the rooms below
     * it and never one above.
     */
    private static final List<String> ROOMS = List.of("dev.loompool.jdbc.internal.sql", "dev.loompool.jdbc.internal.driver",
            "dev.loompool.jdbc.internal.physical", "dev.loompool.jdbc.internal.handle", "dev.loompool.jdbc.internal.lifecycle");


    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() throws Exception {
        // pool-core's own classes only: not its tests, nor the stub driver and test support beside them
        Path classes = Path.of(Pool.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        main = new ClassFileImporter().importPath(classes);
        assertThat(main.contain("dev.loompool.jdbc.internal.lifecycle.StartedPool")).isTrue();
    }

    @Test
    void theCoreKnowsNothingOfJdbcOrSpring() {
        classes().that().resideInAnyPackage("dev.loompool", "dev.loompool.engine")
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage("dev.loompool", "dev.loompool.engine", "java..", "org.slf4j..",
                        "jdk.jfr") // the Flight Recorder events, beside their emitters
                .check(main);
    }

    @Test
    void theJdbcLayerKnowsNothingOfSpringOrMicrometer() {
        classes().that().resideInAPackage("dev.loompool.jdbc..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("dev.loompool", "dev.loompool.engine",
                        "dev.loompool.jdbc..", "java..", "javax.sql..", "javax.naming..", "org.slf4j..",
                        "javax.xml.transform..", // SQLXML's Source and Result: the pool wraps the driver's SQLXML
                        "javax.management..",  // the pool's MXBean (PoolMBean), registered when registerMbeans is set
                        "jdk.jfr") // the Flight Recorder events, beside their emitters
                .check(main);
    }

    /**
     * The core's engine is the JDBC engine's business only where it lends without a Lease per
     * acquire (DirectPool, Entry), where its factory tells the start how long to keep trying
     * (PrewarmPolicy), where its hand-out validation is told its caller's deadline (HandOutCheck) and
     * where a timed-out create says what the time went on (CreateTimedOut): the JDBC API, and every
     * other engine type, stay out of reach.
     */
    @Test
    void onlyTheJdbcEngineUsesTheCoresEngineAndOnlyThroughItsDoors() {
        noClasses().that().resideInAPackage("dev.loompool.jdbc..")
                .should().dependOnClassesThat(DescribedPredicate.describe(
                        "are dev.loompool.engine types other than DirectPool, Entry, PrewarmPolicy, HandOutCheck "
                                + "and CreateTimedOut",
                        (JavaClass c) -> c.getPackageName().equals("dev.loompool.engine")
                                && !Set.of("dev.loompool.engine.DirectPool", "dev.loompool.engine.Entry",
                                        "dev.loompool.engine.PrewarmPolicy", "dev.loompool.engine.HandOutCheck",
                                        "dev.loompool.engine.CreateTimedOut").contains(topLevel(c).getName())))
                .check(main);
        noClasses().that().resideInAPackage("dev.loompool.jdbc")
                .should().dependOnClassesThat().resideInAPackage("dev.loompool.engine")
                .check(main);
    }

    /**
     * API &lt;- engine: an API type reaches into its engine only through the engine's door (the JDBC
     * API into any room of its engine: its doors are the lifecycle's, which starts the pool).
     */
    @Test
    void eachApiEntersItsEngineThroughItsDoorOnly() {
        for (String[] layer : new String[][] {{"dev.loompool", "dev.loompool.engine"},
            {"dev.loompool.jdbc", "dev.loompool.jdbc.internal"}}) {
            noClasses().that().resideInAPackage(layer[0])
                    .should().dependOnClassesThat(DescribedPredicate.describe(
                            "are " + layer[1] + " types other than its door",
                            (JavaClass c) -> (c.getPackageName().equals(layer[1]) || c.getPackageName().startsWith(layer[1] + "."))
                                    && !ENGINE_DOORS.containsKey(topLevel(c).getName())))
                    .check(main);
        }
    }

    @Test
    void eachRoomOfTheJdbcEngineUsesOnlyTheRoomsBelowIt() {
        classes().that().resideInAPackage("dev.loompool.jdbc.internal..")
                .should().resideInAnyPackage(ROOMS.toArray(String[]::new))
                .because("every class of the engine is in one of its rooms")
                .check(main);
        for (int i = 0; i < ROOMS.size() - 1; i++) {
            noClasses().that().resideInAPackage(ROOMS.get(i))
                    .should().dependOnClassesThat().resideInAnyPackage(ROOMS.subList(i + 1, ROOMS.size()).toArray(String[]::new))
                    .check(main);
        }
    }

    /** The SQL room works on text and catalog rows: no JDBC object, no pool, no API type reaches it. */
    @Test
    void theSqlRoomIsPureText() {
        classes().that().resideInAPackage(ROOMS.get(0))
                .should().onlyDependOnClassesThat().resideInAnyPackage(ROOMS.get(0), "java.lang..", "java.util..", "java.nio.charset..")
                .check(main);
    }

    /** A room's public type is a door: a higher room uses it, or it stays package-private. */
    @Test
    void aRoomsPublicTypesAreDoorsARoomAboveUses() {
        List<String> unused = new ArrayList<>();
        for (JavaClass c : main) {
            String room = c.getPackageName();
            if (c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC) && ROOMS.indexOf(room) >= 0
                    && ROOMS.indexOf(room) < ROOMS.size() - 1
                    && c.getDirectDependenciesToSelf().stream().allMatch(d -> d.getOriginClass().getPackageName().equals(room))) {
                unused.add(c.getName());
            }
        }
        assertThat(unused).isEmpty();
    }

    /**
     * A new public type is a decision: it goes into PUBLIC_API (or, in an engine package, into
     * ENGINE_DOORS) with its reason, or it stays package-private.
     */
    @Test
    void everyPublicTypeIsKnownPublicApiOrAnEnginesDoor() {
        TreeSet<String> api = new TreeSet<>();
        TreeSet<String> doors = new TreeSet<>();
        for (JavaClass c : main) {
            if (!c.isTopLevelClass() || !c.getModifiers().contains(JavaModifier.PUBLIC)) {
                continue;
            }
            switch (c.getPackageName()) {
                case "dev.loompool", "dev.loompool.jdbc" -> api.add(c.getName());
                case "dev.loompool.engine", "dev.loompool.jdbc.internal.lifecycle" -> doors.add(c.getName());
                default -> { } // the Spring layer: its auto-configuration is public for Boot
            }
        }
        assertThat(api).containsExactlyElementsOf(PUBLIC_API.keySet());
        assertThat(doors).containsExactlyElementsOf(ENGINE_DOORS.keySet());
    }

    /** On the module path pool-core exports its two API packages, and neither engine. */
    @Test
    void theCoreModuleExportsTheApiPackagesOnly() throws Exception {
        URI location = dev.loompool.Pool.class.getProtectionDomain().getCodeSource().getLocation().toURI();
        Path where = Path.of(location);
        ModuleDescriptor module;
        if (Files.isDirectory(where)) {
            try (InputStream in = Files.newInputStream(where.resolve("module-info.class"))) {
                module = ModuleDescriptor.read(in);
            }
        } else {
            try (FileSystem jar = FileSystems.newFileSystem(where)) {
                try (InputStream in = Files.newInputStream(jar.getPath("module-info.class"))) {
                    module = ModuleDescriptor.read(in);
                }
            }
        }
        assertThat(module.name()).isEqualTo("dev.loompool");
        assertThat(module.exports()).allMatch(e -> !e.isQualified(), "exported to everyone, not to friends")
                .extracting(ModuleDescriptor.Exports::source)
                .containsExactlyInAnyOrder("dev.loompool", "dev.loompool.jdbc");
    }

    /**
     * At most two levels of hand-written classes in any hierarchy; the generated leaves of the JDBC
     * wrappers (Delegating*, the codegen module's DelegateGenerator) are final and do not count.
     */
    @Test
    void noHierarchyIsDeeperThanTwoHandWrittenLevels() {
        assertThat(deeperThanTwo(main)).isEmpty();
        assertThat(main.stream().filter(ArchitectureTest::generated))
                .as("the generated leaves").hasSizeGreaterThanOrEqualTo(6)
                .allMatch(c -> c.getModifiers().contains(JavaModifier.FINAL), "are final");
    }

    /** No abstract class calls an abstract method of its own: a rule lives where it is read. */
    @Test
    void noBaseClassCallsDownIntoASubclass() {
        List<String> callsDown = new ArrayList<>();
        for (JavaClass c : main) {
            if (!c.getModifiers().contains(JavaModifier.ABSTRACT) || c.isInterface()) {
                continue;
            }
            for (JavaMethod m : c.getMethods()) {
                if (m.getModifiers().contains(JavaModifier.ABSTRACT)) {
                    m.getCallsOfSelf().stream().filter(call -> call.getOriginOwner().equals(c))
                            .forEach(call -> callsDown.add(call.getDescription()));
                }
            }
        }
        assertThat(callsDown).isEmpty();
    }

    @Test
    void theJdbcEngineNeverNamesTheJavaBean() {
        noClasses().that().resideInAPackage("dev.loompool.jdbc.internal..")
                .should().dependOnClassesThat(DescribedPredicate.describe("are LoomPoolDataSource or DataSourceSettings",
                        (JavaClass c) -> JAVA_BEAN.contains(topLevel(c).getName())))
                .because("the engine works from the settings record read once at start (STYLE.md, "
                        + "\"Configuration is read once\"); the limits change through StartedPool.change")
                .check(main);
    }

    /** The engine's rooms (each subpackage of dev.loompool.jdbc.internal) import each other one way only. */
    @Test
    void theJdbcEnginesRoomsImportNoCycle() {
        SliceAssignment rooms = new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                String p = c.getPackageName();
                if (p.startsWith("dev.loompool.jdbc.internal.")) {
                    return SliceIdentifier.of("internal." + p.substring("dev.loompool.jdbc.internal.".length()).split("\\.")[0]);
                }
                return SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the rooms of dev.loompool.jdbc.internal";
            }
        };
        slices().assignedFrom(rooms).should().beFreeOfCycles().check(main);
    }

    /**
     * No class-level cycle between the JDBC API and its engine: the API types the engine uses
     * (enums, records, SPI interfaces) use no engine type themselves; only the JavaBean and its
     * helpers enter the engine, through its doors, and the engine never names them.
     */
    @Test
    void theApiTypesTheEngineUsesDoNotUseTheEngine() {
        Set<String> usedByEngine = new TreeSet<>();
        for (JavaClass c : main) {
            if (c.getPackageName().startsWith("dev.loompool.jdbc.internal")) {
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    if (d.getTargetClass().getPackageName().equals("dev.loompool.jdbc")) {
                        usedByEngine.add(topLevel(d.getTargetClass()).getName());
                    }
                }
            }
        }
        List<String> cycles = new ArrayList<>();
        for (JavaClass c : main) {
            if (usedByEngine.contains(topLevel(c).getName())) {
                c.getDirectDependenciesFromSelf().stream()
                        .filter(d -> d.getTargetClass().getPackageName().startsWith("dev.loompool.jdbc.internal"))
                        .forEach(d -> cycles.add(d.getDescription()));
            }
        }
        assertThat(usedByEngine).as("the API types the engine uses").isNotEmpty().doesNotContainAnyElementsOf(JAVA_BEAN);
        assertThat(cycles).isEmpty();
    }

    /**
     * The lead's rule (issue 37): state has one owner, changed through named transitions. No field
     * of a main class is public and mutable: neither a public non-final field, nor a public array,
     * whose elements anyone could write.
     */
    @Test
    void noPublicMutableFieldInMainCode() {
        List<String> mutable = new ArrayList<>();
        for (JavaClass c : main) {
            for (JavaField f : c.getFields()) {
                if (f.getModifiers().contains(JavaModifier.PUBLIC)
                        && (!f.getModifiers().contains(JavaModifier.FINAL) || f.getRawType().isArray())) {
                    mutable.add(f.getFullName());
                }
            }
        }
        assertThat(mutable).isEmpty();
    }

    private static List<String> deeperThanTwo(JavaClasses classes) {
        List<String> deep = new ArrayList<>();
        for (JavaClass c : classes) {
            int levels = 0;
            for (Optional<JavaClass> k = Optional.of(c); k.isPresent() && isOurs(k.get()); k = k.get().getRawSuperclass()) {
                levels += generated(k.get()) ? 0 : 1;
            }
            if (levels > 2) {
                deep.add(c.getName() + " (" + levels + " levels)");
            }
        }
        return deep;
    }

    private static boolean isOurs(JavaClass c) {
        return c.getPackageName().startsWith("dev.loompool");
    }

    private static boolean generated(JavaClass c) {
        return c.getPackageName().equals("dev.loompool.jdbc.internal.handle") && c.getSimpleName().startsWith("Delegating");
    }

    private static JavaClass topLevel(JavaClass c) {
        JavaClass k = c;
        while (k.getEnclosingClass().isPresent()) {
            k = k.getEnclosingClass().get();
        }
        return k;
    }
}
