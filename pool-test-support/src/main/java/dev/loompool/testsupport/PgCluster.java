package dev.loompool.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A private PostgreSQL cluster for one test run: a fresh data directory under the temp directory,
 * a free port on 127.0.0.1 and its Unix socket in that directory, so the shared servers on
 * 5432/3306 are never touched. It is stopped and deleted on {@link #close()} and, should the test
 * never get there, by a shutdown hook. A cluster left by a JVM killed outright is removed by the
 * next {@link #start}: each directory records the pid of the JVM that owns it.
 *
 * <p>The server programs run as the user {@code postgres} when this JVM is root ({@code runuser}),
 * as the current user otherwise. Every admin call opens its own connection (application name
 * {@value #ADMIN_APP}), never one of a pool under test, and the backend counts leave it out.
 * Authentication is {@code trust} for user {@code postgres}, replication included, so a
 * {@linkplain #startStandby() streaming standby} can be cloned from any cluster.
 */
public final class PgCluster implements AutoCloseable {

    /** The application name of the admin connections, which {@link #clientBackends} leaves out. */
    public static final String ADMIN_APP = "loompool-admin";
    private static final String PREFIX = "loompool-pg-";
    /** The chaos suite's clusters, from before this class moved here: still cleaned up when orphaned. */
    private static final String LEGACY_PREFIX = "loompool-chaos-";
    private static final Path POSTGRES_HOME = Path.of("/usr/lib/postgresql");
    private static final Duration POLL = Duration.ofMillis(20);

    private final Path bin;
    private final ServerHome home;
    private final Path dir;
    private final Path data;
    private final int port;

    private PgCluster(Path bin, ServerHome home) {
        this.bin = bin;
        this.home = home;
        this.dir = home.dir;
        this.data = dir.resolve("data");
        this.port = home.port;
    }

    /** The bin directory of the newest PostgreSQL under /usr/lib/postgresql that has initdb, if any. */
    public static Optional<Path> findBinaries() {
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

    /** Creates, configures and starts a cluster with only the built-in databases; see {@link #createDatabase}. */
    public static PgCluster start(Path bin) throws IOException {
        // The clusters of earlier runs whose JVM is gone (killed before its hook ran).
        Scratch.removeOrphans("PostgreSQL cluster", orphan -> stopImmediately(bin, orphan.resolve("data")), PREFIX,
                LEGACY_PREFIX);
        PgCluster cluster = allocate(bin);
        try {
            cluster.pg("initdb", "-D", cluster.data.toString(), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                    "--locale=C", "--no-sync");
            // initdb --auth=trust also trusts replication connections from 127.0.0.1: pg_basebackup needs no more.
            cluster.appendSettings(
                    "# loompool tests: a throwaway cluster, tuned for speed, never for safety",
                    "listen_addresses = '127.0.0.1'",
                    "max_connections = 60",
                    "shared_buffers = 32MB",
                    "fsync = off",
                    "synchronous_commit = off",
                    "full_page_writes = off",
                    "autovacuum_naptime = 5s");
            cluster.start();
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** A new cluster (see {@link #start}) with {@code database}, in which {@code setupSql} ran. */
    public static PgCluster startWith(Path bin, String database, String... setupSql) throws IOException, SQLException {
        PgCluster cluster = start(bin);
        try {
            cluster.createDatabase(database);
            try (Connection c = cluster.admin(database); Statement s = c.createStatement()) {
                for (String sql : setupSql) {
                    s.execute(sql);
                }
            }
            return cluster;
        } catch (SQLException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** {@link #startStandby()}, returned once it has replayed what this cluster had written ({@link #waitForStandby}). */
    public PgCluster startStandbyCaughtUp() throws IOException, SQLException {
        PgCluster standby = startStandby();
        try {
            waitForStandby(standby, Duration.ofSeconds(30));
            return standby;
        } catch (SQLException | RuntimeException e) {
            standby.close();
            throw e;
        }
    }

    /**
     * A streaming standby of this cluster, started: {@code pg_basebackup -R -X stream} into a
     * directory and port of its own, so it is closed (and cleaned up) on its own. It accepts
     * read-only connections once this returns; {@link #waitForStandby} waits for it to catch up.
     */
    public PgCluster startStandby() throws IOException {
        PgCluster standby = allocate(bin);
        try {
            standby.pg("pg_basebackup", "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres",
                    "-D", standby.data.toString(), "-R", "-X", "stream", "--checkpoint=fast", "--no-sync");
            // The copied postgresql.conf names this cluster's port and socket: the later lines win.
            standby.appendSettings("# loompool tests: a standby of " + this);
            standby.start();
            return standby;
        } catch (IOException | RuntimeException e) {
            standby.close();
            throw e;
        }
    }

    /** A new directory and port, its cleanup hook registered before any server can run in it. */
    private static PgCluster allocate(Path bin) throws IOException {
        return new PgCluster(bin, ServerHome.allocate(PREFIX, "pg-cluster-cleanup",
                home -> stopImmediately(bin, home.dir.resolve("data"))));
    }

    /** Appends settings to postgresql.conf, after this cluster's own port and socket directory. */
    private void appendSettings(String... lines) throws IOException {
        Stream<String> own = Stream.of("port = " + port, "unix_socket_directories = '" + dir + "'");
        String text = Stream.concat(Stream.of(lines), own).collect(Collectors.joining("\n", "\n", "\n"));
        Files.writeString(data.resolve("postgresql.conf"), text, StandardOpenOption.APPEND);
    }

    /** {@code CREATE DATABASE name} (a plain identifier: it is not quoted). */
    public void createDatabase(String name) throws SQLException {
        try (Connection c = admin("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
    }

    public int port() {
        return port;
    }

    /** {@code jdbc:postgresql://127.0.0.1:port/database?user=postgres}, then {@code &extraParams} if not empty. */
    public String jdbcUrl(String database, String extraParams) {
        return home.jdbcUrl(database, extraParams);
    }

    /** A fresh admin connection to {@code database}, left out of {@link #clientBackends}. */
    public Connection admin(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database, "ApplicationName=" + ADMIN_APP
                + "&connectTimeout=5&socketTimeout=15"));
    }

    /** The client backends of {@code database}: the admin connections and the pids in {@code leftOut} not counted. */
    public int clientBackends(String database, Set<Integer> leftOut) throws SQLException {
        String notLeftOut = leftOut.isEmpty() ? "" : " AND pid <> ALL ('{" + leftOut.stream().map(String::valueOf)
                .collect(Collectors.joining(",")) + "}'::int[])";
        try (Connection c = admin("postgres"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE " + clients(database)
                        + notLeftOut)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Terminates a random client backend of {@code database} (not an admin one); its pid, or -1 if there was none. */
    public int terminateRandomClientBackend(String database) throws SQLException {
        try (Connection c = admin("postgres"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pid, pg_terminate_backend(pid) FROM (SELECT pid"
                        + " FROM pg_stat_activity WHERE " + clients(database) + " ORDER BY random() LIMIT 1) victim")) {
            return rs.next() ? rs.getInt(1) : -1;
        }
    }

    private static String clients(String database) {
        return "datname = '" + database.replace("'", "''") + "' AND backend_type = 'client backend'"
                + " AND application_name <> '" + ADMIN_APP + "'";
    }

    /** {@code pg_is_in_recovery()}: true on a standby until it is promoted. */
    public boolean inRecovery() throws SQLException {
        try (Connection c = admin("postgres"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /**
     * Waits until {@code standby} has replayed everything this cluster had written when called
     * (its {@code pg_last_wal_replay_lsn()} reaches this one's {@code pg_current_wal_insert_lsn()}:
     * not {@code pg_current_wal_lsn()}, the write position, which with {@code synchronous_commit = off}
     * can still be short of the last commit).
     *
     * @throws IllegalStateException if it has not within {@code timeout}
     */
    public void waitForStandby(PgCluster standby, Duration timeout) throws SQLException {
        String target;
        try (Connection c = admin("postgres"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
            rs.next();
            target = rs.getString(1);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection c = standby.admin("postgres"); PreparedStatement ps = c.prepareStatement(
                "SELECT coalesce(pg_last_wal_replay_lsn() >= ?::pg_lsn, false), pg_last_wal_replay_lsn()::text")) {
            ps.setString(1, target);
            while (true) {
                String replayed;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        return;
                    }
                    replayed = rs.getString(2);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the standby " + standby + " replayed up to " + replayed
                            + ", not " + target + " of " + this + ", within " + timeout.toMillis() + " ms");
                }
                sleep(POLL);
            }
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a standby", e);
        }
    }

    /** {@code pg_ctl promote -w}: a standby leaves recovery and becomes writable before this returns. */
    public void promote() throws IOException {
        pg("pg_ctl", "-D", data.toString(), "-w", "-t", "60", "promote");
    }

    /** {@code pg_ctl restart -m fast}: every backend is terminated, then the server starts again. */
    public void restart() throws IOException {
        pg("pg_ctl", "-D", data.toString(), "-l", dir.resolve("server.log").toString(), "-m", "fast", "-w", "-t", "60",
                "restart");
    }

    /** {@code pg_ctl stop -m fast}: every backend is terminated; {@link #start()} brings the server back. */
    public void stop() throws IOException {
        pg("pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "-t", "60", "stop");
    }

    /** Starts the server and returns once it accepts connections. */
    public void start() throws IOException {
        pg("pg_ctl", "-D", data.toString(), "-l", dir.resolve("server.log").toString(), "-w", "-t", "60", "start");
    }

    /** Stops the server at once and deletes its directory. Idempotent. */
    @Override
    public void close() {
        home.close();
    }

    private static void stopImmediately(Path bin, Path data) {
        if (!Files.exists(data.resolve("postmaster.pid"))) {
            return;
        }
        try {
            Commands.exec(Commands.command(bin.resolve("pg_ctl"), "-D", data.toString(), "-m", "immediate", "-w",
                    "-t", "30", "stop"), data.getParent(), false);
        } catch (IOException | RuntimeException e) {
            System.err.println("could not stop the PostgreSQL cluster in " + data + ": " + e.getMessage());
        }
    }

    private void pg(String program, String... args) throws IOException {
        Commands.exec(Commands.command(bin.resolve(program), args), dir, true);
    }

    @Override
    public String toString() {
        return "PostgreSQL " + bin.getParent().getFileName() + " on 127.0.0.1:" + port + " in " + dir;
    }
}
