package dev.loompool.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A private PgBouncer in transaction mode in front of one database, for one test run: its config,
 * log and pid file in a fresh directory under the temp directory, a free port on 127.0.0.1, so the
 * distro's instance (port 6432, if its service runs at all) is never touched. It is stopped and its
 * directory deleted on {@link #close()} and, should the test never get there, by a shutdown hook; an
 * instance left by a JVM killed outright is stopped by the next {@link #start}.
 *
 * <p>Clients connect as {@code postgres} without a password ({@code auth_type = trust}); PgBouncer
 * logs into the server as that user too, so the server must trust it (the shared server and
 * {@link PgCluster} do). PgBouncer refuses to run as root: a root JVM runs it as {@code postgres}.
 * Its admin console ({@link #show}) answers {@code SHOW POOLS}, {@code SHOW SERVERS} and the like.
 */
public final class PgBouncer implements AutoCloseable {

    private static final String PREFIX = "loompool-pgbouncer-";
    private static final String PID_FILE = "pgbouncer.pid";
    private static final Duration READY = Duration.ofSeconds(10);

    private final ServerHome home;
    private final Path dir;
    private final int port;
    private final String database;

    private PgBouncer(ServerHome home, String database) {
        this.home = home;
        this.dir = home.dir;
        this.port = home.port;
        this.database = database;
    }

    /** The pgbouncer program: on the PATH, else in /usr/sbin (not on a non-root PATH on Debian). */
    public static Optional<Path> findBinary() {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.concat(Stream.of(path.split(":")).filter(p -> !p.isEmpty()), Stream.of("/usr/sbin", "/usr/bin"))
                .map(p -> Path.of(p, "pgbouncer"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /**
     * Starts a PgBouncer that pools connections to {@code database} on {@code targetHost:targetPort}
     * in transaction mode, at most {@code defaultPoolSize} server connections, and returns once it
     * accepts connections.
     */
    public static PgBouncer start(String targetHost, int targetPort, String database, int defaultPoolSize)
            throws IOException {
        Path binary = findBinary().orElseThrow(() -> new IOException("no pgbouncer on the PATH nor in /usr/sbin"));
        Scratch.removeOrphans("PgBouncer", orphan -> stopProcess(orphan, true), PREFIX);
        PgBouncer bouncer = new PgBouncer(ServerHome.allocate(PREFIX, "pgbouncer-cleanup", PgBouncer::stop), database);
        Path dir = bouncer.dir;
        try {
            Files.writeString(dir.resolve("userlist.txt"), "\"postgres\" \"\"\n");
            Files.writeString(dir.resolve("pgbouncer.ini"), String.join("\n",
                    "[databases]",
                    database + " = host=" + targetHost + " port=" + targetPort + " dbname=" + database,
                    "",
                    "[pgbouncer]",
                    "listen_addr = 127.0.0.1",
                    "listen_port = " + bouncer.port,
                    "unix_socket_dir = " + dir,
                    "auth_type = trust",
                    "auth_file = " + dir.resolve("userlist.txt"),
                    "admin_users = postgres",
                    "pool_mode = transaction",
                    "default_pool_size = " + defaultPoolSize,
                    "max_client_conn = 2000",
                    // pgjdbc puts extra_float_digits in the startup packet under assumeMinServerVersion >= 9.0,
                    // and 1.18 refuses parameters it does not track ("unsupported startup parameter"). With
                    // its defaults pgjdbc 42.7 sends nothing else 1.18 refuses; currentSchema (search_path)
                    // and options are refused, on purpose: dropping them would change what a query does.
                    "ignore_startup_parameters = extra_float_digits",
                    // The default, 15 s, would keep clients waiting that long after a server restart.
                    "server_login_retry = 1",
                    "logfile = " + dir.resolve("pgbouncer.log"),
                    "pidfile = " + dir.resolve(PID_FILE),
                    ""));
            if (Commands.asPostgres()) {
                // Written by root: readable by postgres only under a permissive umask, so hand them over.
                Commands.exec(List.of("chown", "-R", "postgres:postgres", dir.toString()), dir, true);
            }
            // -d: it daemonizes and writes its pid file, which close() and the orphan cleanup read.
            Commands.exec(Commands.command(binary, "-d", dir.resolve("pgbouncer.ini").toString()), dir, true);
            bouncer.awaitListening();
            return bouncer;
        } catch (IOException | RuntimeException e) {
            bouncer.close();
            throw e;
        }
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + READY.toNanos();
        while (!accepts(port) || !Files.exists(dir.resolve(PID_FILE))) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("PgBouncer does not accept connections on 127.0.0.1:" + port + " after "
                        + READY.toSeconds() + " s\n" + Commands.tail(dir.resolve("pgbouncer.log")));
            }
            if (!pause()) {
                throw new IOException("interrupted while waiting for PgBouncer on 127.0.0.1:" + port);
            }
        }
    }

    public int port() {
        return port;
    }

    /** The one database it pools (the name clients and the server both use). */
    public String database() {
        return database;
    }

    /** {@code jdbc:postgresql://127.0.0.1:port/database?user=postgres}, then {@code &extraParams} if not empty. */
    public String jdbcUrl(String extraParams) {
        return home.jdbcUrl(database, extraParams);
    }

    /**
     * The rows of an admin console command ({@code SHOW POOLS}, {@code SHOW SERVERS}, …) on the
     * database {@code pgbouncer}, each a map from column name to value. Run through {@code psql},
     * not pgjdbc: pgjdbc 42.7.5+ sends the console {@code SET extra_float_digits}, which
     * PgBouncer 1.18 refuses ("SET failed"; fixed upstream long after, pgbouncer issue 1509).
     */
    public List<Map<String, String>> show(String command) throws IOException {
        Path psql = findPsql().orElseThrow(() -> new IOException("no psql on the PATH nor under /usr/lib/postgresql"));
        Process p = new ProcessBuilder(psql.toString(), "-X", "-q", "-A", "-F", "\t", "-P", "footer=off",
                "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres", "-d", "pgbouncer", "-c", command)
                .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("commands.log").toFile())).start();
        List<String> lines;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            lines = out.lines().collect(Collectors.toList());
        }
        try {
            if (!p.waitFor(15, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("psql " + command + " on " + this + " failed\n"
                        + Commands.tail(dir.resolve("commands.log")));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: psql " + command, e);
        }
        if (lines.isEmpty()) {
            return List.of();
        }
        String[] columns = lines.get(0).split("\t", -1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] values = line.split("\t", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < columns.length && i < values.length; i++) {
                row.put(columns[i], values[i]);
            }
            rows.add(row);
        }
        return rows;
    }

    private static Optional<Path> findPsql() {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(":")).filter(d -> !d.isEmpty()).map(d -> Path.of(d, "psql"))
                .filter(Files::isExecutable).findFirst()
                .or(() -> PgCluster.findBinaries().map(b -> b.resolve("psql")).filter(Files::isExecutable));
    }

    /** The server connections of the pooled database, whatever their state ({@code SHOW SERVERS}). */
    public int serverConnections() throws IOException {
        return (int) show("SHOW SERVERS").stream().filter(r -> database.equals(r.get("database"))).count();
    }

    /** The {@code SHOW POOLS} row of the pooled database and user {@code postgres}; all zero before any client. */
    public Pool pool() throws IOException {
        return show("SHOW POOLS").stream()
                .filter(r -> database.equals(r.get("database")) && "postgres".equals(r.get("user")))
                .findFirst()
                .map(r -> new Pool(count(r, "cl_active"), count(r, "cl_waiting"), count(r, "sv_active"),
                        count(r, "sv_idle"), count(r, "sv_used"), count(r, "sv_tested"), count(r, "sv_login")))
                .orElse(new Pool(0, 0, 0, 0, 0, 0, 0));
    }

    private static int count(Map<String, String> row, String column) {
        String value = row.get(column);
        if (value == null) {
            throw new IllegalStateException("SHOW POOLS has no column " + column + ": " + row.keySet());
        }
        return Integer.parseInt(value);
    }

    /** One row of {@code SHOW POOLS}: clients ({@code cl_*}) and server connections ({@code sv_*}) by state. */
    public record Pool(int clientsActive, int clientsWaiting, int serversActive, int serversIdle, int serversUsed,
            int serversTested, int serversLogin) {

        /** Every server connection of the pool, whatever its state. */
        public int servers() {
            return serversActive + serversIdle + serversUsed + serversTested + serversLogin;
        }
    }

    /** Stops PgBouncer (its pid file's process), waits until its port is free, deletes its directory. Idempotent. */
    @Override
    public void close() {
        home.close();
    }

    /** What its {@link ServerHome} runs before deleting the directory, on close or in the shutdown hook. */
    private static void stop(ServerHome home) {
        stopProcess(home.dir, false);
        // The next test may want a server on this port: it is free once this returns (or READY passed).
        long deadline = System.nanoTime() + READY.toNanos();
        while (accepts(home.port) && System.nanoTime() - deadline < 0 && pause()) {
            // waiting for the listening socket to close
        }
    }

    /**
     * SIGTERM (1.18: immediate shutdown) to the pid in the pid file, then SIGKILL if it lingers.
     * With {@code verify} (an orphan's pid file, maybe old enough for the pid to be reused) only a
     * process that is visibly a pgbouncer is signalled.
     */
    private static void stopProcess(Path dir, boolean verify) {
        Optional<ProcessHandle> process = pid(dir).flatMap(ProcessHandle::of)
                .filter(p -> !verify || p.info().command().map(c -> c.endsWith("/pgbouncer")).orElse(false));
        if (process.isEmpty()) {
            return;
        }
        ProcessHandle p = process.get();
        p.destroy();
        try {
            p.onExit().get(5, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            p.destroyForcibly();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static Optional<Long> pid(Path dir) {
        try {
            return Optional.of(Long.parseLong(Files.readString(dir.resolve(PID_FILE)).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Sleeps 20 ms; false if interrupted (the flag is set again), so that waits end early. */
    private static boolean pause() {
        try {
            Thread.sleep(20);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public String toString() {
        return "PgBouncer on 127.0.0.1:" + port + " for " + database + " in " + dir;
    }
}
