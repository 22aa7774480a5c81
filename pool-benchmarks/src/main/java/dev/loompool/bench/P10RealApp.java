package dev.loompool.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * P10: a real Spring Boot application (bench-app: JPA, open-in-view, IDENTITY inserts, batch
 * fetches) under HTTP load, on loompool and on HikariCP. Each trial creates a fresh database,
 * starts the application's jar as a child JVM on it, waits for its health, runs the load, and
 * ends the JVM and drops the database. Three variants, one scenario each: open-in-view off, on,
 * and a page that calls a 20 ms downstream between two transactions (open-in-view on). Each trial
 * also reads, over its measured window, the pool's meters of the wait for a connection and of the
 * time one stays in use ({@link #TIMERS}); P10c runs the same trials at other sizes.
 *
 * <p>Also the load driver on its own, for an application started elsewhere (compat/run-load):
 * {@code java -cp pool-benchmarks.jar dev.loompool.bench.P10RealApp --url http://localhost:8080
 * --label loompool [--clients 200] [--warmup 10] [--measure 10] [--db NAME] --get 80 /owners/{1..10}
 * --post 20 /path body}.
 */
final class P10RealApp implements Scenario {

    enum Variant {
        OIV_OFF("P10-oiv-off", "open-in-view off", false, false),
        OIV_ON("P10-oiv-on", "open-in-view on", true, false),
        SLOW("P10-slow", "open-in-view on, a 20 ms downstream call between two transactions", true, true);

        final String id;
        final String words;
        final boolean openInView;
        final boolean slow;

        Variant(String id, String words, boolean openInView, boolean slow) {
            this.id = id;
            this.words = words;
            this.openInView = openInView;
            this.slow = slow;
        }
    }

    /** 40 % list pages, 40 % detail pages, 20 % visits booked (bench-app's seed: 1,000 owners, 2,000 pets). */
    static final List<HttpLoad.Call> MIX = List.of(HttpLoad.Call.get(40, "/owners?page={0..49}"),
            HttpLoad.Call.get(40, "/owners/{1..1000}"), HttpLoad.Call.post(20, "/pets/{1..2000}/visits", "description=check-up"));
    static final List<HttpLoad.Call> SLOW_PAGE = List.of(HttpLoad.Call.get(1, "/slow?owner={1..1000}"));

    /** Both pools' min and max. */
    static final int SIZE = 10;

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicInteger DATABASES = new AtomicInteger();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly)));
    }

    /**
     * The meters of the time each pool's callers waited for a connection and of the time one stayed
     * in use, read over each trial's measured window. loompool's are per physical binding (a
     * handle that lets its connection go between transactions counts each binding); HikariCP's per
     * borrow, from getConnection to close.
     */
    private static final Map<PoolKind, Map<String, String>> TIMERS = Map.of(
            PoolKind.LOOMPOOL, Map.of("wait", "db.client.connection.wait_time", "use", "db.client.connection.use_time"),
            PoolKind.HIKARI, Map.of("wait", "hikaricp.connections.acquire", "use", "hikaricp.connections.usage"));

    final Variant variant;
    /** {@code --jfr}: where loompool's applications record loompool's Flight Recorder events; null: not recorded. */
    private final Path jfr;

    P10RealApp(Variant variant) {
        this(variant, null);
    }

    P10RealApp(Variant variant, Path jfr) {
        this.variant = variant;
        this.jfr = jfr;
    }

    /** The full run's three; the quick run's one (open-in-view on, the mix), short. */
    static List<Variant> variants(Mode mode) {
        return mode == Mode.QUICK ? List.of(Variant.OIV_ON) : List.of(Variant.values());
    }

    /** One scenario per variant of {@link #variants}; with {@code jfr}, loompool's applications record their events there. */
    static List<Scenario> scenarios(Mode mode, Path jfr) {
        List<Scenario> list = new ArrayList<>();
        for (Variant v : variants(mode)) {
            list.add(new P10RealApp(v, jfr));
        }
        return list;
    }

    /** bench-app's jar: -Dloompool.bench.app, else bench-app/target/bench-app.jar under the working directory. */
    static Path jar() {
        return Path.of(System.getProperty("loompool.bench.app", "bench-app/target/bench-app.jar"));
    }

    @Override
    public String id() {
        return variant.id;
    }

    @Override
    public String group() {
        return "P10";
    }

    @Override
    public String title() {
        return "Spring Boot JPA application (bench-app), " + variant.words + ", min = max 10, " + (variant.slow ? "every request /slow"
                : "40 % list, 40 % detail, 20 % writes") + "; HTTP clients on virtual threads";
    }

    @Override
    public String target() {
        return (variant.slow ? ">= 3x" : ">= 1.0x") + " HikariCP's requests/s; 0 connections opened per 1,000 requests";
    }

    @Override
    public List<PoolKind> pools() {
        return List.of(PoolKind.LOOMPOOL, PoolKind.HIKARI);
    }

    @Override
    public Trial run(PoolKind pool, Mode mode) throws Exception {
        return trial(id(), pool, SIZE, mode);
    }

    /**
     * One trial of the application with {@code pool} at min = max {@code size} (P10c gives loompool
     * fewer), for the scenario {@code scenarioId} (its recording's name, with {@code --jfr}).
     */
    Trial trial(String scenarioId, PoolKind pool, int size, Mode mode) throws Exception {
        String db = "p10_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        admin("CREATE DATABASE " + db);
        Process app = null;
        try {
            int port = freePort();
            String name = db + "-" + pool.name().toLowerCase() + "-" + size;
            Path log = Files.createTempFile(name + "-", ".log");
            app = start(pool, size, port, db, log, scenarioId + "-" + name);
            HttpLoad load = new HttpLoad("http://127.0.0.1:" + port, variant.slow ? SLOW_PAGE : MIX);
            if (!load.awaitHealthy(Duration.ofSeconds(120), app::isAlive)) {
                throw new IllegalStateException("bench-app did not come up on " + pool.label + "; its log: " + log);
            }
            boolean quick = mode == Mode.QUICK;
            // A Boot application's JIT is still compiling 10 s in (its CPU per request was 3x the steady
            // state's at 10 s, measured): the full run warms up for 30 s.
            Trial t = load.run(pool, Duration.ofSeconds(quick ? 3 : 30), Duration.ofSeconds(quick ? 3 : 15), quick ? 50 : 200, db,
                    TIMERS.getOrDefault(pool, Map.of()));
            if (pool == PoolKind.LOOMPOOL) {
                t.extra.put("pinned", load.pinTimes()); // since the application started, warm-up included
            }
            Files.deleteIfExists(log);
            return t;
        } finally {
            stop(app);
            admin("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
        }
    }

    private Process start(PoolKind pool, int size, int port, String db, Path log, String recording) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx1g", "-Xms1g"));
        if (jfr != null && pool == PoolKind.LOOMPOOL) { // written when the application ends (stop's SIGTERM)
            cmd.add("-XX:StartFlightRecording:settings=default,settings=" + JmhRuns.loompoolJfc(jfr).toAbsolutePath() + ",filename="
                    + jfr.resolve(recording + ".jfr").toAbsolutePath() + ",dumponexit=true");
        }
        cmd.addAll(List.of("-jar", jar().toString(), "--server.port=" + port,
                "--spring.datasource.url=" + Postgres.URL.replaceFirst("/[^/?]+(\\?|$)", "/" + db + "$1"),
                "--spring.jpa.open-in-view=" + variant.openInView, "--logging.level.root=WARN"));
        // The same sizes for both, as every other scenario opens its pools (PoolKind.Settings): 10
        // opened at start and at most 10 (P10c gives loompool fewer, still min = max). HikariCP's
        // default minimum-idle is its maximum; loompool's min-size defaults to 2, which left it
        // growing, where HikariCP never does, and its late connects would read as churn against
        // HikariCP's none.
        if (pool == PoolKind.HIKARI) {
            cmd.add("--spring.datasource.type=com.zaxxer.hikari.HikariDataSource");
            cmd.add("--spring.datasource.hikari.maximum-pool-size=" + size);
            cmd.add("--spring.datasource.hikari.minimum-idle=" + size);
        } else {
            cmd.add("--loompool.max-size=" + size);
            cmd.add("--loompool.min-size=" + size);
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        LIVE.add(p);
        return p;
    }

    private static void stop(Process p) throws InterruptedException {
        if (p == null) {
            return;
        }
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
        }
        LIVE.remove(p);
    }

    private static void admin(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(Postgres.URL); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The load driver alone, against an application already running (compat/run-load): prints one line. */
    public static void main(String[] args) throws Exception {
        String url = null;
        String label = "app";
        String db = null;
        int clients = 200;
        int warmup = 10;
        int measure = 10;
        for (int i = 0; i < args.length - 1; i++) {
            switch (args[i]) {
                case "--url" -> url = args[++i];
                case "--label" -> label = args[++i];
                case "--db" -> db = args[++i];
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--measure" -> measure = Integer.parseInt(args[++i]);
                default -> {
                }
            }
        }
        List<HttpLoad.Call> calls = HttpLoad.calls(args);
        if (url == null || calls.isEmpty()) {
            System.err.println("usage: P10RealApp --url URL [--label L] [--clients N] [--warmup S] [--measure S] [--db NAME]"
                    + " (--get W PATH | --post W PATH BODY)...");
            System.exit(2);
        }
        Trial t = new HttpLoad(url, calls).run(PoolKind.LOOMPOOL, Duration.ofSeconds(warmup), Duration.ofSeconds(measure), clients, db);
        System.out.printf("%-10s %,8.0f req/s  p50 %8.2f ms  p99 %8.2f ms  errors %d%s  %s%n", label, t.perSecond(), t.millis(0.5),
                t.millis(0.99), t.errors, t.firstError == null ? "" : " (first: " + t.firstError + ")", t.extra);
        System.exit(0);
    }
}
