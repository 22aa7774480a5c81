package dev.loompool.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where P7's cycle goes: the no-pool floor, loompool and HikariCP take turns (each phase the P7
 * loop, four platform threads over max 4, on the real PostgreSQL), and each phase reports its
 * requests/s, the JVM's CPU time per cycle (process CPU over the phase / cycles) and the share of
 * JFR's execution samples by whose code was running. A sample is charged to the innermost frame
 * that belongs to loompool, HikariCP, pgjdbc or the loop itself, so the JDK code a caller runs
 * (sockets, locks, collections) counts as that caller's; samples of threads outside the loop
 * (the JIT, GC, the pools' housekeepers) are charged to "other threads".
 *
 * <pre>java -cp pool-benchmarks.jar dev.loompool.bench.P7Profile [seconds per phase] [rounds] [out dir] [phase]</pre>
 *
 * <p>A phase name ending in {@code -tx} (floor-tx, loompool-tx, HikariCP-tx) profiles P7tx's cycle
 * instead: a one-statement transaction as Spring runs it.
 *
 * <p>With a phase named (floor, loompool, HikariCP; p8 for P8's loompool trial; p2-loompool or p2-HikariCP for P2's trial) only that one runs: for a profiler attached
 * to the whole JVM, such as async-profiler, whose CPU samples also see the driver's socket calls
 * and the kernel, where JFR's execution samples see only threads running Java code.
 */
public final class P7Profile {

    private static final int THREADS = P7RealCycle.THREADS;
    private static final String LOOP = P7Profile.class.getName();

    private P7Profile() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        Path out = Path.of(args.length > 2 ? args[2] : "p7-profile");
        Files.createDirectories(out);
        String[] phases = args.length > 3 ? new String[] {args[3]} : new String[] {"floor", "loompool", "HikariCP"};
        for (int r = 1; r <= rounds; r++) {
            for (int i = 0; i < phases.length; i++) {
                String phase = phases[(i + r - 1) % phases.length];
                phase(phase, seconds, out.resolve(phase + "-" + r + ".jfr"));
            }
        }
    }

    /**
     * P8's loompool trial alone (10,000 virtual threads over max 10, query, 20 ms off the database,
     * query): its rate, the JVM's CPU per request and how busy the host was (phase "p8").
     */
    private static void p8(int seconds) throws Exception {
        DataSource ds = P8ManyThreads.open(PoolKind.LOOMPOOL);
        try {
            virtualLoad("p8 loompool", 10_000, seconds, () -> P3SlowCall.request(ds));
        } finally {
            PoolKind.close(ds);
        }
    }

    /**
     * P2's trial alone for one pool (2,000 virtual threads over max 10, the stub's query parks
     * 100 µs; phases "p2-loompool", "p2-HikariCP").
     */
    private static void p2(PoolKind kind, int seconds) throws Exception {
        String url = dev.loompool.stub.StubDriver.database("p2").cheap(Duration.ofNanos(100_000)).url();
        DataSource ds = kind.open(new PoolKind.Settings(url, null, null, 10, 10, Duration.ofSeconds(60)));
        try {
            virtualLoad("p2 " + kind.label, 2_000, seconds, () -> {
                try (Connection c = ds.getConnection()) {
                    select(c);
                }
            });
        } finally {
            PoolKind.close(ds);
        }
    }

    /**
     * {@code threads} virtual threads loop {@code request}: 5 s to warm up, then {@code seconds}
     * measured; prints the rate, the JVM's CPU per request and how busy the JVM and the host were.
     */
    private static void virtualLoad(String label, int threads, int seconds, Load.Request request) throws Exception {
        LongAdder requests = new LongAdder();
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            running.add(Thread.ofVirtual().start(() -> {
                try {
                    while (!stop.get()) {
                        request.run();
                        if (measuring.get()) {
                            requests.increment();
                        }
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                }
            }));
        }
        Thread.sleep(5_000);
        HostCpu cpu = new HostCpu();
        long t0 = System.nanoTime();
        measuring.set(true);
        Thread.sleep(seconds * 1000L);
        measuring.set(false);
        long elapsed = System.nanoTime() - t0;
        double jvmCores = cpu.jvmCores();
        double hostCores = cpu.hostCores();
        stop.set(true);
        for (Thread t : running) {
            t.join();
        }
        long n = requests.sum();
        System.out.printf("%-12s %,9.0f req/s  JVM CPU %6.2f µs/request  JVM %.2f cores, host busy %.2f cores%n", label,
                n * 1e9 / elapsed, jvmCores * elapsed / 1e3 / n, jvmCores, hostCores);
    }

    private static void phase(String phase, int seconds, Path jfr) throws Exception {
        if (phase.equals("p8")) {
            p8(seconds);
            return;
        }
        if (phase.startsWith("p2-")) {
            p2(phase.equals("p2-loompool") ? PoolKind.LOOMPOOL : PoolKind.HIKARI, seconds);
            return;
        }
        boolean tx = phase.endsWith("-tx");
        String who = tx ? phase.substring(0, phase.length() - 3) : phase;
        List<Connection> held = new ArrayList<>();
        DataSource ds = null;
        if (who.equals("floor")) {
            for (int i = 0; i < THREADS; i++) {
                held.add(DriverManager.getConnection(Postgres.URL));
            }
        } else {
            PoolKind kind = who.equals("loompool") ? PoolKind.LOOMPOOL : PoolKind.HIKARI;
            ds = kind.open(new PoolKind.Settings(Postgres.URL, null, null, THREADS, THREADS, Duration.ofSeconds(30)));
        }
        try {
            DataSource source = ds;
            LongAdder cycles = new LongAdder();
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch done = new CountDownLatch(THREADS);
            for (int t = 0; t < THREADS; t++) {
                Connection mine = held.isEmpty() ? null : held.get(t);
                Thread.ofPlatform().name("p7-" + t).start(() -> {
                    try {
                        while (!stop.get()) {
                            if (mine != null) {
                                if (tx) {
                                    P7RealCycle.held(mine, true);
                                } else {
                                    select(mine);
                                }
                            } else if (tx) {
                                P7RealCycle.cycle(source, true);
                            } else {
                                try (Connection c = source.getConnection()) {
                                    select(c);
                                }
                            }
                            if (measuring.get()) {
                                cycles.increment();
                            }
                        }
                    } catch (Exception e) {
                        e.printStackTrace();
                    } finally {
                        done.countDown();
                    }
                });
            }
            Thread.sleep(3_000); // warm-up: the JIT settles
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            try (Recording recording = new Recording(Configuration.getConfiguration("profile"))) {
                recording.start();
                long cpu0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                measuring.set(true);
                Thread.sleep(seconds * 1000L);
                measuring.set(false);
                long elapsed = System.nanoTime() - t0;
                long cpu = os.getProcessCpuTime() - cpu0;
                recording.stop();
                stop.set(true);
                done.await();
                recording.dump(jfr);
                long n = cycles.sum();
                Map<String, Integer> methods = new LinkedHashMap<>();
                System.out.printf("%-9s %,9.0f req/s  JVM CPU %6.2f µs/cycle  samples: %s%n", phase,
                        n * 1e9 / elapsed, cpu / 1e3 / n, shares(jfr, methods));
                methods.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(12)
                        .forEach(m -> System.out.printf("    %5d  %s%n", m.getValue(), m.getKey()));
            }
        } finally {
            for (Connection c : held) {
                c.close();
            }
            if (ds != null) {
                PoolKind.close(ds);
            }
        }
    }

    /** The share of the execution samples by whose code was running (see the class comment). */
    static Map<String, String> shares(Path jfr, Map<String, Integer> poolMethods) throws Exception {
        Map<String, Integer> counts = new LinkedHashMap<>();
        int total = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
                continue;
            }
            String thread = e.getThread("sampledThread") == null ? "" : e.getThread("sampledThread").getJavaName();
            List<RecordedFrame> frames = e.getStackTrace().getFrames();
            String owner = thread != null && thread.startsWith("p7-") ? owner(frames) : "other threads";
            counts.merge(owner, 1, Integer::sum);
            if (owner.equals("loompool") || owner.equals("HikariCP")) {
                for (RecordedFrame f : frames) { // the pool's innermost method: where its share goes
                    String type = f.getMethod().getType().getName();
                    if (type.startsWith("dev.loompool.") || type.startsWith("com.zaxxer.hikari")) {
                        poolMethods.merge(type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName(), 1,
                                Integer::sum);
                        break;
                    }
                }
            }
            total++;
        }
        Map<String, String> shares = new LinkedHashMap<>();
        int all = total;
        counts.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue())
                .forEach(c -> shares.put(c.getKey(), Math.round(c.getValue() * 1000.0 / all) / 10.0 + "%"));
        shares.put("samples", String.valueOf(total));
        return shares;
    }

    private static String owner(List<RecordedFrame> frames) {
        for (RecordedFrame f : frames) { // innermost first
            String type = f.getMethod().getType().getName();
            if (type.startsWith("dev.loompool.bench")) {
                return type.startsWith(LOOP) ? "loop" : "harness";
            }
            if (type.startsWith("dev.loompool.")) {
                return "loompool";
            }
            if (type.startsWith("com.zaxxer.hikari")) {
                return "HikariCP";
            }
            if (type.startsWith("org.postgresql")) {
                return "pgjdbc";
            }
        }
        return "JDK only";
    }

    private static void select(Connection c) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1"); ResultSet rs = ps.executeQuery()) {
            rs.next();
        }
    }
}
