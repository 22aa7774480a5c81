package dev.loompool.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loompool.testsupport.PgCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.function.Executable;

/**
 * The chaos suite of issue 11: bank transfers on many virtual threads over a small pool while a
 * private PostgreSQL cluster loses a backend every 2 s and restarts once a round. After an
 * unmeasured round of each pool (the warm-up, faults included), four rounds run in the order
 * loompool, HikariCP, HikariCP, loompool, on the same workload and fault schedule, each on a
 * freshly reset bank: whatever drifts in the JVM or on the machine during the suite weighs on both
 * pools alike. The rounds happen once,
 * before the tests; each test asserts one invariant on what they recorded, on every round, and the
 * summary (also in {@code target/chaos-summary.txt}) shows every figure, including each pool's
 * transfers summed over its two rounds and their ratio.
 *
 * <p>Run it alone with {@code ./mvnw -pl pool-benchmarks -am verify -Dtest=ChaosSuiteTest
 * -Dsurefire.failIfNoSpecifiedTests=false}; the knobs are in {@link ChaosSettings}. Without
 * PostgreSQL's server programs, or as root without a {@code postgres} user, it is skipped, except
 * under {@code CI=true}, where it fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChaosSuiteTest {

    private final ChaosSettings settings = ChaosSettings.fromSystemProperties();
    private final List<ChaosRun.Result> loompool = new ArrayList<>();
    private final List<ChaosRun.Result> hikari = new ArrayList<>();

    @BeforeAll
    void runBothPoolsUnderTheSameFaults() throws Exception {
        Path bin = serverPrograms();
        long start = System.nanoTime();
        String where;
        try (PgCluster cluster = PgCluster.start(bin)) {
            cluster.createDatabase(Bank.DATABASE);
            where = cluster.toString();
            Bank bank = new Bank(cluster, settings.accounts());
            ChaosRun run = new ChaosRun(cluster, bank, settings);
            // The pools' backends are the client backends the suite counts (admin ones left out).
            String url = "jdbc:postgresql://127.0.0.1:" + cluster.port() + "/" + Bank.DATABASE
                    + "?ApplicationName=chaos-pool";
            ChaosRun.PoolOpener loom = timeline -> PoolUnderTest.loompool(url, settings, timeline);
            ChaosRun.PoolOpener hika = timeline -> PoolUnderTest.hikari(url, settings);
            run.run(hika, 0); // the warm-up rounds, discarded
            run.run(loom, 0);
            loompool.add(run.run(loom, 1));
            hikari.add(run.run(hika, 1));
            hikari.add(run.run(hika, 2));
            loompool.add(run.run(loom, 2));
        }
        String summary = Summary.of(where, settings, (System.nanoTime() - start) / 1_000_000, loompool, hikari);
        System.out.println(summary);
        Path report = Path.of("target", "chaos-summary.txt");
        Files.createDirectories(report.getParent());
        Files.writeString(report, summary);
    }

    @Test
    void theSumOfBalancesNeverChanges() {
        long expected = Bank.INITIAL_BALANCE * settings.accounts();
        assertAll(rounds(loompool, hikari).map(r -> (Executable) () -> {
            assertEquals(0, r.watchers().sumMismatches.sum(), r.label() + ": wrong sums " + r.watchers().sumExamples);
            assertTrue(r.watchers().sumChecks.sum() > 0, r.label() + ": the sum was never read");
            assertEquals(expected, r.quiesce().finalSum(),
                    r.label() + ": final sum (" + r.quiesce().finalSumError() + ")");
        }));
    }

    @Test
    void noRequestWaitsPastItsAcquireTimeoutPlusOneStatement() {
        assertAll(rounds(loompool).map(r -> (Executable) () -> assertEquals(0, r.requests().overBound(),
                r.label() + ": requests over " + settings.requestBound().toMillis() + " ms (longest "
                        + r.requests().maxMillis() + " ms): " + r.requests().overBoundExamples())));
    }

    @Test
    void poolCountsStayConsistentThroughout() {
        assertAll(rounds(loompool).map(r -> (Executable) () -> {
            Watchers w = r.watchers();
            assertTrue(w.countSamples.sum() > 0, r.label() + ": the pool's counts were never sampled");
            assertEquals(0, w.countViolations.sum(),
                    r.label() + ": total == idle + inUse <= maxSize broken: " + w.countExamples);
        }));
    }

    @Test
    void theServerNeverHoldsMoreBackendsThanThePoolsTotal() {
        assertAll(rounds(loompool).map(r -> (Executable) () -> {
            Watchers w = r.watchers();
            ChaosRun.Quiesce q = r.quiesce();
            assertAll(r.label(),
                    () -> assertTrue(w.backendSamples.sum() > 0, "the backends were never counted"),
                    () -> assertEquals(0, w.backendViolations.sum(), "backends above the pool's total for "
                            + BackendRule.PERSISTENT_MILLIS + " ms: " + w.backendExamples),
                    () -> assertTrue(q.backends() >= 0 && q.backends() <= q.counts().total(), "after quiesce: "
                            + q.backends() + " backends, pool " + q.counts()),
                    () -> assertEquals(0, q.backendsAfterClose(), "backends left after the pool was closed"));
        }));
    }

    @Test
    void nothingIsInUseAndNoHandleIsOpenAfterQuiesce() {
        assertAll(rounds(loompool).map(r -> (Executable) () -> {
            ChaosRun.Quiesce q = r.quiesce();
            assertAll(r.label(),
                    () -> assertEquals(0, r.stuckWorkers(), "workers still running after the quiesce"),
                    () -> assertEquals(0, q.counts().inUse(), "in use after quiesce: " + q.counts()),
                    () -> assertEquals(0, q.counts().pending(), "waiting after quiesce: " + q.counts()),
                    () -> assertEquals(0, q.openHandles(), "open handles after quiesce"));
        }));
    }

    /** Not a pool property: whether the suite did what it claims (load flowed, the faults happened). */
    @Test
    void theLoadRanAndTheFaultsHappenedForBothPools() {
        assertAll(rounds(loompool, hikari).map(r -> (Executable) () -> {
            assertTrue(r.requests().completed() > 0, r.label() + ": no transfer completed");
            assertTrue(r.faultErrors().isEmpty(), r.label() + ": faults failed: " + r.faultErrors());
            assertTrue(r.kills() > 0, r.label() + ": no backend was killed");
            boolean restartDue = settings.restartAt().compareTo(settings.round()) < 0;
            assertEquals(restartDue ? 1 : 0, r.timeline().serverDown().size(), r.label() + ": restarts");
        }));
    }

    /**
     * The goal of issue 11's breaker work: the breaker opens only while the server refuses
     * connections. Off until that work lands; turn it on with {@code -Dloompool.chaos.assertBreaker=true}.
     */
    @Test
    @EnabledIfSystemProperty(named = ChaosSettings.PREFIX + "assertBreaker", matches = "true")
    void theBreakerNeverOpensWhileTheServerAcceptsConnections() {
        assertAll(rounds(loompool).map(r -> (Executable) () -> assertEquals(List.of(),
                r.timeline().openingsWhileServerAccepted(),
                r.label() + ": breaker openings outside the server's down windows " + r.timeline().serverDown())));
    }

    @SafeVarargs
    private static Stream<ChaosRun.Result> rounds(List<ChaosRun.Result>... pools) {
        return Stream.of(pools).flatMap(List::stream);
    }

    /**
     * PostgreSQL's bin directory ({@code -Dloompool.chaos.pgBin=…}, else the newest under
     * /usr/lib/postgresql), or the reason there is none: a skip, or under CI=true a failure.
     */
    private static Path serverPrograms() {
        String configured = System.getProperty(ChaosSettings.PREFIX + "pgBin");
        Optional<Path> bin = configured == null || configured.isBlank()
                ? PgCluster.findBinaries()
                : Optional.of(Path.of(configured)).filter(b -> Files.isExecutable(b.resolve("initdb")));
        if (bin.isEmpty()) {
            unavailable("no PostgreSQL server programs (initdb, pg_ctl) in "
                    + (configured == null ? "/usr/lib/postgresql/<version>/bin" : configured));
        }
        if ("root".equals(System.getProperty("user.name"))) {
            try {
                FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            } catch (IOException e) {
                unavailable("running as root, and there is no user 'postgres' to run the server as");
            }
        }
        return bin.orElseThrow();
    }

    private static void unavailable(String why) {
        String message = "chaos suite cannot run: " + why;
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError(message);
        }
        System.err.println(message + " (skipped; under CI=true this fails)");
        Assumptions.abort(message);
    }
}
