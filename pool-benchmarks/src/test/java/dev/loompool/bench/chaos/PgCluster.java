package dev.loompool.bench.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A private PostgreSQL cluster for one test run: a fresh data directory under the temp directory,
 * a free port on 127.0.0.1 and its Unix socket in that directory, so the shared servers on
 * 5432/3306 are never touched. It is stopped and deleted on {@link #close()} and, should the test
 * never get there, by a shutdown hook. A cluster left by a JVM killed outright is removed by the
 * next run: each directory records the pid of the JVM that owns it.
 *
 * <p>The server programs run as the user {@code postgres} when this JVM is root ({@code runuser}),
 * as the current user otherwise. Every admin call opens its own connection (application name
 * {@value #ADMIN_APP}), never one of a pool under test, and the backend counts leave it out.
 */
final class PgCluster implements AutoCloseable {

    static final String DATABASE = "chaos";
    static final String ADMIN_APP = "chaos-admin";
    /** The client backends of the test database, the admin connections left out: the pools' backends. */
    private static final String CLIENTS = "datname = '" + DATABASE + "' AND backend_type = 'client backend'"
            + " AND application_name <> '" + ADMIN_APP + "'";
    private static final String PREFIX = "loompool-chaos-";
    private static final Path POSTGRES_HOME = Path.of("/usr/lib/postgresql");

    private final Path bin;
    private final Path dir;
    private final Path data;
    private final int port;
    private final boolean asPostgres;
    private final Thread cleanup = new Thread(this::destroy, "pg-cluster-cleanup");
    private volatile boolean destroyed;

    private PgCluster(Path bin, Path dir, int port, boolean asPostgres) {
        this.bin = bin;
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
        this.asPostgres = asPostgres;
    }

    /** The bin directory of the newest PostgreSQL under /usr/lib/postgresql that has initdb, if any. */
    static Optional<Path> findBinaries() {
        try (Stream<Path> versions = Files.list(POSTGRES_HOME)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                    .max(Comparator.comparing(PgCluster::majorVersion));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int majorVersion(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString().replaceAll("\\..*", ""));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Creates, configures and starts a cluster with the database {@value #DATABASE}. */
    static PgCluster start(Path bin) throws IOException, SQLException {
        boolean root = "root".equals(System.getProperty("user.name"));
        removeOrphans(bin);
        Path dir = Files.createTempDirectory(PREFIX);
        PgCluster cluster = new PgCluster(bin, dir, freePort(), root);
        Runtime.getRuntime().addShutdownHook(cluster.cleanup);
        try {
            Files.writeString(dir.resolve("owner.pid"), Long.toString(ProcessHandle.current().pid()));
            if (root) {
                cluster.run(List.of("chown", "-R", "postgres:postgres", dir.toString()), false);
            }
            cluster.pg("initdb", "-D", cluster.data.toString(), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                    "--locale=C", "--no-sync");
            Files.writeString(cluster.data.resolve("postgresql.conf"), String.join("\n",
                    "", "# loompool chaos suite: a throwaway cluster, tuned for speed, never for safety",
                    "port = " + cluster.port,
                    "listen_addresses = '127.0.0.1'",
                    "unix_socket_directories = '" + dir + "'",
                    "max_connections = 60",
                    "shared_buffers = 32MB",
                    "fsync = off",
                    "synchronous_commit = off",
                    "full_page_writes = off",
                    "autovacuum_naptime = 5s",
                    ""), StandardOpenOption.APPEND);
            cluster.start();
            try (Connection c = cluster.admin("postgres"); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + DATABASE);
            }
            return cluster;
        } catch (IOException | SQLException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    int port() {
        return port;
    }

    /** The URL the pools under test connect with (their backends are the client backends counted here). */
    String poolUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE + "?ApplicationName=chaos-pool";
    }

    /** A fresh admin connection to {@code database}, left out of {@link #backendCount()}. */
    Connection admin(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database
                + "?user=postgres&ApplicationName=" + ADMIN_APP + "&connectTimeout=5&socketTimeout=15");
    }

    /** Client backends of the test database, the admin connections left out. */
    int backendCount() throws SQLException {
        return backendCount(Set.of());
    }

    /** Client backends of the test database, the admin connections and the backends {@code dying} left out. */
    int backendCount(Set<Integer> dying) throws SQLException {
        String notDying = dying.isEmpty() ? "" : " AND pid <> ALL ('{" + dying.stream().map(String::valueOf)
                .collect(Collectors.joining(",")) + "}'::int[])";
        try (Connection c = admin("postgres"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE " + CLIENTS + notDying)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Terminates a random client backend of the test database; its pid, or -1 if there was none. */
    int killRandomClientBackend() throws SQLException {
        try (Connection c = admin("postgres"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pid, pg_terminate_backend(pid) FROM (SELECT pid"
                        + " FROM pg_stat_activity WHERE " + CLIENTS + " ORDER BY random() LIMIT 1) victim")) {
            return rs.next() ? rs.getInt(1) : -1;
        }
    }

    /** {@code pg_ctl restart -m fast}: every backend is terminated, then the server starts again. */
    void restart() throws IOException {
        pg("pg_ctl", "-D", data.toString(), "-l", dir.resolve("server.log").toString(), "-m", "fast", "-w", "-t", "60",
                "restart");
    }

    void stop() throws IOException {
        pg("pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "-t", "60", "stop");
    }

    /** Starts the server and returns once it accepts connections. */
    void start() throws IOException {
        pg("pg_ctl", "-D", data.toString(), "-l", dir.resolve("server.log").toString(), "-w", "-t", "60", "start");
    }

    /** Stops the server at once and deletes its directory. Idempotent. */
    @Override
    public void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it finds the cluster destroyed
        }
    }

    private void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        stopImmediately(bin, data, asPostgres);
        deleteTree(dir);
    }

    private static void stopImmediately(Path bin, Path data, boolean asPostgres) {
        if (!Files.exists(data.resolve("postmaster.pid"))) {
            return;
        }
        try {
            exec(command(asPostgres, bin, "pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "-t", "30", "stop"),
                    data.getParent(), false);
        } catch (IOException | RuntimeException e) {
            System.err.println("could not stop the chaos cluster in " + data + ": " + e.getMessage());
        }
    }

    /** Stops and deletes the clusters of earlier runs whose JVM is gone (killed before its hook ran). */
    private static void removeOrphans(Path bin) throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> orphans = new ArrayList<>();
        try (Stream<Path> entries = Files.list(tmp)) {
            entries.filter(p -> p.getFileName().toString().startsWith(PREFIX)).forEach(p -> {
                try {
                    long owner = Long.parseLong(Files.readString(p.resolve("owner.pid")).trim());
                    if (ProcessHandle.of(owner).isEmpty()) {
                        orphans.add(p);
                    }
                } catch (IOException | NumberFormatException e) {
                    // not one of ours, or being created right now: leave it
                }
            });
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        for (Path orphan : orphans) {
            System.err.println("removing the chaos cluster of a JVM that is gone: " + orphan);
            stopImmediately(bin, orphan.resolve("data"), root);
            deleteTree(orphan);
        }
    }

    private void pg(String program, String... args) throws IOException {
        exec(command(asPostgres, bin, program, args), dir, true);
    }

    private void run(List<String> command, boolean check) throws IOException {
        exec(command, dir, check);
    }

    private static List<String> command(boolean asPostgres, Path bin, String program, String... args) {
        List<String> command = new ArrayList<>();
        if (asPostgres) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(program).toString());
        command.addAll(Arrays.asList(args));
        return command;
    }

    /**
     * Runs a command in {@code dir} with its output appended to {@code commands.log} there (a file,
     * not a pipe: a postmaster that inherited a pipe would keep a reader waiting for its end).
     */
    private static void exec(List<String> command, Path dir, boolean check) throws IOException {
        Path log = dir.resolve("commands.log");
        Files.writeString(log, "$ " + String.join(" ", command) + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out after 90 s: " + String.join(" ", command));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
        if (check && p.exitValue() != 0) {
            throw new IOException("exit code " + p.exitValue() + " from " + String.join(" ", command) + "\n" + tail(log)
                    + tail(dir.resolve("server.log")));
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return "--- " + file.getFileName() + "\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())) + "\n";
        } catch (IOException e) {
            return "";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not delete the chaos cluster in " + root + ": " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "PostgreSQL " + bin.getParent().getFileName() + " on 127.0.0.1:" + port + " in " + dir;
    }
}
