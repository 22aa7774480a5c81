package dev.loompool.bench;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The real database of P3, P3w, P5, P7 and P8 (and P10's applications): {@code LOOMPOOL_TEST_POSTGRES_URL}, else the local default; and pgbench on it, a ceiling. */
final class Postgres {

    static final String URL = System.getenv().getOrDefault("LOOMPOOL_TEST_POSTGRES_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private Postgres() {
    }

    static boolean reachable() {
        try (Connection c = DriverManager.getConnection(URL)) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * pgbench's C client running {@code script} on {@code clients} connections and 2 worker threads
     * for {@code seconds}, with prepared statements (as pgjdbc's after its threshold): its tps.
     */
    static double pgbench(String script, int clients, int seconds) throws Exception {
        URI uri = URI.create(Postgres.URL.substring("jdbc:".length()));
        Matcher m = Pattern.compile("(?:^|&)user=([^&]+)").matcher(uri.getQuery() == null ? "" : uri.getQuery());
        String user = m.find() ? m.group(1) : "postgres";
        Path file = Files.createTempFile("pgbench-", ".sql");
        try {
            Files.writeString(file, script);
            Process p = new ProcessBuilder("pgbench", "-n", "-M", "prepared", "-f", file.toString(), "-c", String.valueOf(clients),
                    "-j", "2", "-T", String.valueOf(seconds), "-h", uri.getHost(), "-p", String.valueOf(uri.getPort() < 0 ? 5432 : uri.getPort()),
                    "-U", user, uri.getPath().substring(1)).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException("pgbench exited with " + p.exitValue() + ": " + out);
            }
            Matcher tps = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)").matcher(out);
            if (!tps.find()) {
                throw new IllegalStateException("no tps in pgbench's output: " + out);
            }
            return Double.parseDouble(tps.group(1));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Whether pgbench is on the PATH. */
    static boolean pgbenchFound() {
        try {
            return new ProcessBuilder("pgbench", "--version").redirectErrorStream(true).start().waitFor() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    /** A ceiling's run: as long as a trial's warm-up and measured window together. */
    static int seconds(Mode mode) {
        return Math.max(1, (int) Math.round(mode.warmup.plus(mode.measure).toMillis() / 1000.0));
    }
}
