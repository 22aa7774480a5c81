package dev.loompool.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * P10's load driver: HTTP clients on virtual threads through one JDK {@link HttpClient}
 * (HTTP/1.1, keep-alive), each request drawn at random from a weighted mix. A path may hold
 * {@code {1..1000}} (a random number in the range) and {@code {a|b|c}} (one of them). Also counts
 * the connections the application's pool opened, by the pool's own meter through the actuator,
 * and the sessions PostgreSQL saw on the application's database (a server-side check).
 */
final class HttpLoad {

    /** One kind of request and its share of the mix. */
    record Call(int weight, String method, String path, String body) {

        static Call get(int weight, String path) {
            return new Call(weight, "GET", path, null);
        }

        static Call post(int weight, String path, String body) {
            return new Call(weight, "POST", path, body);
        }
    }

    /** The meters that count a pool's connects: loompool's, and HikariCP's. */
    static final List<String> CONNECT_METERS = List.of("db.client.connection.create_time", "hikaricp.connections.creation");

    private static final Pattern PART = Pattern.compile("\\{(\\d+)\\.\\.(\\d+)}|\\{([^}]*\\|[^}]*)}");
    private static final Pattern COUNT = Pattern.compile("\"statistic\"\\s*:\\s*\"COUNT\"\\s*,\\s*\"value\"\\s*:\\s*([0-9.Ee+-]+)");

    private final String base;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Call> calls;
    private final int totalWeight;

    HttpLoad(String base, List<Call> calls) {
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.calls = List.copyOf(calls);
        this.totalWeight = calls.stream().mapToInt(Call::weight).sum();
    }

    /** One request of the mix; a status of 400 or more is an error (a redirect after a form post is its success). */
    void once() throws IOException, InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int pick = random.nextInt(totalWeight);
        Call call = calls.get(0);
        for (Call c : calls) {
            if ((pick -= c.weight) < 0) {
                call = c;
                break;
            }
        }
        String path = expand(call.path, random);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60));
        if (call.method.equals("POST")) {
            b.header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(call.body == null ? "" : expand(call.body, random)));
        }
        int status = client.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status >= 400) {
            throw new IOException("HTTP " + status + " on " + call.method + " " + path);
        }
    }

    static String expand(String template, ThreadLocalRandom random) {
        if (template.indexOf('{') < 0) {
            return template;
        }
        Matcher m = PART.matcher(template);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String value;
            if (m.group(1) != null) {
                value = String.valueOf(random.nextLong(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)) + 1));
            } else {
                String[] options = m.group(3).split("\\|");
                value = options[random.nextInt(options.length)];
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(value));
        }
        return m.appendTail(sb).toString();
    }

    /** GET, with the status: for the readiness wait and the meters. */
    String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 200 ? r.body() : null;
    }

    /** Waits until /actuator/health answers UP; false after the timeout, or at once if {@code alive} says the app died. */
    boolean awaitHealthy(Duration timeout, java.util.function.BooleanSupplier alive) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end && alive.getAsBoolean()) {
            try {
                String body = get("/actuator/health");
                if (body != null && body.contains("\"UP\"")) {
                    return true;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        return false;
    }

    /**
     * Connections opened by the application's pool so far (its own meter's count), or -1 if it has
     * none exposed (each meter answers 404). Any other answer, or no answer, is an IOException: a
     * read that failed under load is not "no meter".
     */
    long poolConnects() throws IOException, InterruptedException {
        long sum = -1;
        for (String meter : CONNECT_METERS) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/actuator/metrics/" + meter))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 404) {
                continue;
            }
            Matcher m = COUNT.matcher(r.statusCode() == 200 ? r.body() : "");
            if (!m.find()) {
                throw new IOException("HTTP " + r.statusCode() + " and no COUNT from /actuator/metrics/" + meter);
            }
            sum = Math.max(sum, 0) + (long) Double.parseDouble(m.group(1));
        }
        return sum;
    }

    /**
     * How long loompool's connections stayed bound by each pin reason since the application
     * started ({@code loompool.connections.pinned.duration} and {@code .max}, by tag {@code reason}):
     * {@code reason samples × mean (max)} for each reason that held one.
     */
    String pinTimes() throws InterruptedException {
        StringBuilder out = new StringBuilder();
        for (dev.loompool.jdbc.PinReason r : dev.loompool.jdbc.PinReason.values()) {
            String tag = "?tag=reason:" + r.name().toLowerCase(java.util.Locale.ROOT);
            try {
                String timer = get("/actuator/metrics/loompool.connections.pinned.duration" + tag);
                String max = get("/actuator/metrics/loompool.connections.pinned.duration.max" + tag);
                double count = statistic(timer, "COUNT");
                if (count > 0) {
                    double mean = statistic(timer, "TOTAL_TIME") / count * 1000;
                    out.append(out.length() == 0 ? "" : "; ").append(String.format(java.util.Locale.ROOT, "%s %,.0f x %.2f ms (max %.0f ms)",
                            r.name().toLowerCase(java.util.Locale.ROOT), count, mean, statistic(max, "VALUE") * 1000));
                }
            } catch (IOException e) {
                return "unknown: " + e;
            }
        }
        return out.toString();
    }

    private static double statistic(String body, String name) {
        Matcher m = body == null ? null
                : Pattern.compile("\"statistic\"\\s*:\\s*\"" + name + "\"\\s*,\\s*\"value\"\\s*:\\s*([0-9.Ee+-]+)").matcher(body);
        return m != null && m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** Sessions PostgreSQL has counted on {@code db} (pg_stat_database.sessions, PostgreSQL 14+), or -1. */
    static long pgSessions(String db) {
        if (db == null) {
            return -1;
        }
        try (Connection c = DriverManager.getConnection(Postgres.URL);
                PreparedStatement ps = c.prepareStatement("SELECT sessions FROM pg_stat_database WHERE datname = ?")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        } catch (Exception e) {
            return -1;
        }
    }

    /**
     * The warm-up, then the measured window, on {@code clients} virtual threads. The pool's own
     * count of connects over the window is the trial's churn ({@link Trial#connectionsOpened}); the
     * sessions PostgreSQL counted on {@code db} over the same window are a check from the server.
     */
    Trial run(PoolKind pool, Duration warmup, Duration measure, int clients, String db) throws Exception {
        return run(pool, warmup, measure, clients, db, Map.of());
    }

    /**
     * {@link #run(PoolKind, Duration, Duration, int, String)}, and for each entry of {@code timers}
     * (an extra's name to a timer meter's name, as {@code /actuator/metrics} has it) the meter's
     * samples over the measured window and their mean, as that extra.
     */
    Trial run(PoolKind pool, Duration warmup, Duration measure, int clients, String db, Map<String, String> timers)
            throws Exception {
        long[] pgBefore = {-1};
        Map<String, double[]> timersBefore = new LinkedHashMap<>();
        Thread marker = Thread.ofVirtual().start(() -> { // reads the counts when the measured window opens
            try {
                Thread.sleep(warmup);
                pgBefore[0] = pgSessions(db);
                timers.forEach((extra, meter) -> timersBefore.put(extra, timer(meter)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Trial t = Load.run(pool, warmup, measure, clients, true, this::knownConnects, this::once);
        Map<String, double[]> timersAfter = new LinkedHashMap<>();
        timers.forEach((extra, meter) -> timersAfter.put(extra, timer(meter))); // the window has just closed
        marker.join();
        Thread.sleep(1100); // backends report their session to the statistics within a second
        long afterPg = pgSessions(db);
        long served = t.requests + t.errors;
        t.extra.put("conn opened/1k req", perThousand(0, t.connectionsOpened, served));
        if (db != null) {
            t.extra.put("pg sessions/1k req", perThousand(pgBefore[0], afterPg, served));
        }
        timersAfter.forEach((extra, after) -> t.extra.put(extra, samples(timersBefore.get(extra), after)));
        return t;
    }

    /** A timer meter's {@code {COUNT, TOTAL_TIME in seconds}} so far; null if it could not be read. */
    private double[] timer(String meter) {
        try {
            String body = get("/actuator/metrics/" + meter);
            return body == null ? null : new double[] {statistic(body, "COUNT"), statistic(body, "TOTAL_TIME")};
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The samples between two readings and their mean, as "1,234 x 0.56 ms". */
    private static String samples(double[] before, double[] after) {
        if (before == null || after == null) {
            return "unknown";
        }
        double count = after[0] - before[0];
        double mean = count == 0 ? 0 : (after[1] - before[1]) / count * 1000;
        return String.format(java.util.Locale.ROOT, "%,.0f x %.2f ms", count, mean);
    }

    /** The application's pool's connects so far; an application that publishes none fails the trial, never counts 0. */
    private long knownConnects() {
        try {
            long n = poolConnects();
            if (n < 0) {
                throw new IllegalStateException("the application at " + base + " publishes none of " + CONNECT_METERS
                        + " under /actuator/metrics: its connection churn cannot be counted");
            }
            return n;
        } catch (IOException e) {
            throw new IllegalStateException("reading the pool's connect meter from " + base + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Object perThousand(long before, long after, long requests) {
        if (before < 0 || after < 0) {
            return "unknown";
        }
        return Math.round((after - before) * 1000.0 / Math.max(1, requests) * 100) / 100.0;
    }

    /** {@code --get W PATH} and {@code --post W PATH BODY} arguments as calls. */
    static List<Call> calls(String[] args) {
        List<Call> calls = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--get")) {
                calls.add(Call.get(Integer.parseInt(args[i + 1]), args[i + 2]));
                i += 2;
            } else if (args[i].equals("--post")) {
                calls.add(Call.post(Integer.parseInt(args[i + 1]), args[i + 2], args[i + 3]));
                i += 3;
            }
        }
        return calls;
    }
}
