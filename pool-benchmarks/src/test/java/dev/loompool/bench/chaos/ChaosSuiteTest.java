package dev.loompool.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.function.Executable;

/**
 * The chaos suite of issue 11: bank transfers on many virtual threads over a small pool while a
 * private PostgreSQL cluster loses a backend every 2 s and restarts once; loompool first, then
 * HikariCP on the same workload and fault schedule, each on a freshly reset bank. The runs happen
 * once, before the tests; each test asserts one invariant on what they recorded, and the summary
 * (also in {@code target/chaos-summary.txt}) shows every figure, including the ratio of completed
 * transfers, which is a figure and not an assertion.
 *
 * <p>Run it alone with {@code ./mvnw -pl pool-benchmarks -am verify -Dtest=ChaosSuiteTest
 * -Dsurefire.failIfNoSpecifiedTests=false}; the knobs are in {@link ChaosSettings}. Without
 * PostgreSQL's server programs, or as root without a {@code postgres} user, it is skipped, except
 * under {@code CI=true}, where it fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChaosSuiteTest {

    private final ChaosSettings settings = ChaosSettings.fromSystemProperties();
    private ChaosRun.Result loompool;
    private ChaosRun.Result hikari;

    @BeforeAll
    void runBothPoolsUnderTheSameFaults() throws Exception {
        Path bin = serverPrograms();
        long start = System.nanoTime();
        List<ChaosRun.Result> results = new ArrayList<>();
        String where;
        try (PgCluster cluster = PgCluster.start(bin)) {
            where = cluster.toString();
            Bank bank = new Bank(cluster, settings.accounts());
            ChaosRun run = new ChaosRun(cluster, bank, settings);
            String url = cluster.poolUrl();
            loompool = run.run(timeline -> PoolUnderTest.loompool(url, settings, timeline));
            results.add(loompool);
            hikari = run.run(timeline -> PoolUnderTest.hikari(url, settings));
            results.add(hikari);
        }
        String summary = Summary.of(where, settings, (System.nanoTime() - start) / 1_000_000, results);
        System.out.println(summary);
        Path report = Path.of("target", "chaos-summary.txt");
        Files.createDirectories(report.getParent());
        Files.writeString(report, summary);
    }

    @Test
    void theSumOfBalancesNeverChanges() {
        long expected = Bank.INITIAL_BALANCE * settings.accounts();
        assertAll(List.of(loompool, hikari).stream().map(r -> (Executable) () -> {
            assertEquals(0, r.watchers().sumMismatches.sum(), r.label() + ": wrong sums " + r.watchers().sumExamples);
            assertTrue(r.watchers().sumChecks.sum() > 0, r.label() + ": the sum was never read");
            assertEquals(expected, r.quiesce().finalSum(),
                    r.label() + ": final sum (" + r.quiesce().finalSumError() + ")");
        }));
    }

    @Test
    void noRequestWaitsPastItsAcquireTimeoutPlusOneStatement() {
        assertEquals(0, loompool.requests().overBound(), "loompool requests over "
                + settings.requestBound().toMillis() + " ms (longest " + loompool.requests().maxMillis() + " ms): "
                + loompool.requests().overBoundExamples());
    }

    @Test
    void poolCountsStayConsistentThroughout() {
        Watchers w = loompool.watchers();
        assertTrue(w.countSamples.sum() > 0, "the pool's counts were never sampled");
        assertEquals(0, w.countViolations.sum(), "total == idle + inUse <= maxSize broken: " + w.countExamples);
    }

    @Test
    void theServerNeverHoldsMoreBackendsThanThePoolsTotal() {
        Watchers w = loompool.watchers();
        ChaosRun.Quiesce q = loompool.quiesce();
        assertAll(
                () -> assertTrue(w.backendSamples.sum() > 0, "the backends were never counted"),
                () -> assertEquals(0, w.backendViolations.sum(), "backends above the pool's total for "
                        + BackendRule.PERSISTENT_MILLIS + " ms: " + w.backendExamples),
                () -> assertTrue(q.backends() >= 0 && q.backends() <= q.counts().total(), "after quiesce: "
                        + q.backends() + " backends, pool " + q.counts()),
                () -> assertEquals(0, q.backendsAfterClose(), "backends left after the pool was closed"));
    }

    @Test
    void nothingIsInUseAndNoHandleIsOpenAfterQuiesce() {
        ChaosRun.Quiesce q = loompool.quiesce();
        assertAll(
                () -> assertEquals(0, loompool.stuckWorkers(), "workers still running after the quiesce"),
                () -> assertEquals(0, q.counts().inUse(), "in use after quiesce: " + q.counts()),
                () -> assertEquals(0, q.counts().pending(), "waiting after quiesce: " + q.counts()),
                () -> assertEquals(0, q.openHandles(), "open handles after quiesce"));
    }

    /** Not a pool property: whether the suite did what it claims (load flowed, the faults happened). */
    @Test
    void theLoadRanAndTheFaultsHappenedForBothPools() {
        assertAll(List.of(loompool, hikari).stream().map(r -> (Executable) () -> {
            assertTrue(r.requests().completed() > 0, r.label() + ": no transfer completed");
            assertTrue(r.faultErrors().isEmpty(), r.label() + ": faults failed: " + r.faultErrors());
            assertTrue(r.kills() > 0, r.label() + ": no backend was killed");
            boolean restartDue = settings.restartAt().compareTo(settings.runTime()) < 0;
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
        assertEquals(List.of(), loompool.timeline().openingsWhileServerAccepted(),
                "breaker openings outside the server's down windows " + loompool.timeline().serverDown());
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
