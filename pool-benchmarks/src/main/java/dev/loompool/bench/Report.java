package dev.loompool.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;

/** Writes results.md and the charts (PNG) of one run. */
final class Report {

    private final Mode mode;
    private final Path dir;
    private final StringBuilder md = new StringBuilder();

    Report(Mode mode, Path dir) throws IOException {
        this.mode = mode;
        this.dir = Files.createDirectories(dir);
        md.append("# loompool benchmark results (").append(mode.name().toLowerCase()).append(" mode)\n\n")
                .append("Java ").append(System.getProperty("java.version")).append(", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" CPUs. Ratios are loompool / the other pool ")
                .append("in the same run.\n\n");
    }

    static String verdict(boolean met, String detail) {
        return (met ? "**MET**" : "**MISSED**") + " (" + detail + ")";
    }

    void failed(String id, Exception e) {
        md.append("## ").append(id).append("\n\nFAILED: ").append(e).append("\n\n");
    }

    void skipped(String id, String why) {
        md.append("## ").append(id).append("\n\nskipped: ").append(why).append("\n\n");
    }

    void p1(Map<PoolKind, double[][]> scores) throws IOException {
        md.append("## P1: pool overhead, stub driver, max 32 (JMH throughput, ops/ms)\n\n| pool |");
        for (int t : JmhRuns.THREADS) {
            md.append(' ').append(t).append(" thread(s) |");
        }
        md.append("\n|---|").append("---|".repeat(JmhRuns.THREADS.length)).append('\n');
        CategoryChart chart = chart("P1: getConnection -> query -> close, stub driver", "threads", "ops/ms", false);
        List<String> x = new ArrayList<>();
        for (int t : JmhRuns.THREADS) {
            x.add(String.valueOf(t));
        }
        scores.forEach((pool, s) -> {
            md.append("| ").append(pool.label).append(" |");
            List<Double> y = new ArrayList<>();
            for (double[] v : s) {
                md.append(String.format(" %,.0f ± %,.0f |", v[0], v[1]));
                y.add(v[0]);
            }
            md.append('\n');
            chart.addSeries(pool.label, x, y);
        });
        double[][] loom = scores.get(PoolKind.LOOMPOOL);
        double[][] hikari = scores.get(PoolKind.HIKARI);
        StringBuilder ratios = new StringBuilder();
        boolean met = true;
        for (int t = 0; t < JmhRuns.THREADS.length; t++) {
            double ratio = loom[t][0] / hikari[t][0];
            met &= ratio >= 1;
            ratios.append(String.format("%s%d thread(s) %.2fx", t == 0 ? "" : ", ", JmhRuns.THREADS[t], ratio));
        }
        md.append("\nTarget: throughput >= HikariCP's: ").append(verdict(met, "loompool/HikariCP " + ratios)).append("\n\n");
        md.append("Connection churn is not counted here: each pool opens its 32 stub connections at set-up, and the "
                + "timed scenarios (P2 on the same stub driver) count what each pool opens in its measured windows.\n\n");
        save(chart, "p1-throughput");
    }

    void p6(Map<PoolKind, Double> bytes) throws IOException {
        md.append("## P6: bytes allocated per operation (JMH -prof gc, P1 at 1 thread)\n\n| pool | B/op |\n|---|---|\n");
        CategoryChart chart = chart("P6: allocation per getConnection -> close cycle", "pool", "bytes/op", false);
        List<String> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        bytes.forEach((pool, b) -> {
            md.append(String.format("| %s | %.0f |%n", pool.label, b));
            x.add(pool.label);
            y.add(b);
        });
        chart.addSeries("B/op", x, y);
        double loom = bytes.get(PoolKind.LOOMPOOL);
        double hikari = bytes.get(PoolKind.HIKARI);
        md.append("\nTarget: bytes/op <= HikariCP's: ")
                .append(verdict(loom <= hikari, String.format("%.0f vs %.0f B/op", loom, hikari))).append("\n\n");
        save(chart, "p6-allocation");
    }

    /** A timed scenario: per pool, the mean over rounds, and the distribution of the median round. */
    void timed(Scenario s, Map<PoolKind, List<Trial>> trials, String verdict) throws IOException {
        md.append("## ").append(s.id()).append(": ").append(s.title()).append("\n\n")
                .append("| pool | req/s (mean of ").append(trials.values().iterator().next().size()).append(") | loompool / pool | p50 ms | p99 ms | p99.9 ms | max ms | max / p50 | errors | conn opened/1k | notes |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        double loom = mean(trials.get(PoolKind.LOOMPOOL));
        CategoryChart rate = chart(s.id() + ": " + s.title(), "pool", "requests/s", false);
        CategoryChart latency = chart(s.id() + ": latency over every request", "percentile", "ms (log)", true);
        List<String> pools = new ArrayList<>();
        List<Double> rates = new ArrayList<>();
        trials.forEach((pool, list) -> {
            Trial t = median(list);
            double m = mean(list);
            md.append(String.format("| %s | %,.0f | %.2fx | %.2f | %.2f | %.2f | %.2f | %.1f | %s | %s | %s |%n", pool.label, m,
                    loom / m, t.millis(0.5), t.millis(0.99), t.millis(0.999), t.maxMillis(),
                    t.maxMillis() / t.millis(0.5), errors(list), Churn.perThousand(list), t.extra.isEmpty() ? "" : t.extra));
            pools.add(pool.label);
            rates.add(m);
            if (t.sortedNanos.length > 0) { // a pool whose every request outlasted the window has no latencies
                latency.addSeries(pool.label, List.of("p50", "p99", "p99.9", "max"),
                        List.of(t.millis(0.5), t.millis(0.99), t.millis(0.999), t.maxMillis()));
            }
        });
        rate.addSeries("requests/s", pools, rates);
        md.append("\nTarget: ").append(s.target()).append(": ").append(verdict).append("\n\n");
        save(rate, s.id().toLowerCase() + "-throughput");
        save(latency, s.id().toLowerCase() + "-latency");
    }

    /**
     * A scenario of pools at sizes of their own (P10c): per contender, the mean over rounds and the
     * median round's latencies, side by side, each rate against the baseline's.
     */
    void sized(SizedScenario s, Map<SizedScenario.Contender, List<Trial>> trials, String verdict) throws IOException {
        String base = s.baseline().label();
        md.append("## ").append(s.id()).append(": ").append(s.title()).append("\n\n")
                .append("| pool@connections | req/s (mean of ").append(trials.values().iterator().next().size()).append(") | / ")
                .append(base).append(" | p50 ms | p99 ms | p99.9 ms | max ms | errors | conn opened/1k | notes |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|\n");
        double baseRate = mean(trials.get(s.baseline()));
        CategoryChart rate = chart(s.id() + ": " + s.title(), "pool@connections", "requests/s", false);
        CategoryChart latency = chart(s.id() + ": latency over every request", "percentile", "ms (log)", true);
        List<String> labels = new ArrayList<>();
        List<Double> rates = new ArrayList<>();
        trials.forEach((c, list) -> {
            Trial t = median(list);
            double m = mean(list);
            md.append(String.format("| %s | %,.0f | %.2fx | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |%n", c.label(), m, m / baseRate,
                    t.millis(0.5), t.millis(0.99), t.millis(0.999), t.maxMillis(), errors(list), Churn.perThousand(list),
                    t.extra.isEmpty() ? "" : t.extra));
            labels.add(c.label());
            rates.add(m);
            if (t.sortedNanos.length > 0) {
                latency.addSeries(c.label(), List.of("p50", "p99", "p99.9", "max"),
                        List.of(t.millis(0.5), t.millis(0.99), t.millis(0.999), t.maxMillis()));
            }
        });
        rate.addSeries("requests/s", labels, rates);
        md.append("\nTarget: ").append(s.target()).append(": ").append(verdict).append("\n\n");
        save(rate, s.id().toLowerCase() + "-throughput");
        save(latency, s.id().toLowerCase() + "-latency");
    }

    /** Errors over all rounds, and how many of them were getConnection giving up, if any. */
    private static String errors(List<Trial> list) {
        long all = list.stream().mapToLong(t -> t.errors).sum();
        long acquire = list.stream().mapToLong(t -> t.acquireFailures).sum();
        return acquire == 0 ? String.valueOf(all) : String.format("%,d (%,d acquire failures)", all, acquire);
    }

    static double mean(List<Trial> list) {
        return list.stream().mapToDouble(Trial::perSecond).average().orElse(Double.NaN);
    }

    static Trial median(List<Trial> list) {
        List<Trial> sorted = new ArrayList<>(list);
        sorted.sort((a, b) -> Double.compare(a.perSecond(), b.perSecond()));
        return sorted.get(sorted.size() / 2);
    }

    private static CategoryChart chart(String title, String x, String y, boolean log) {
        CategoryChart chart = new CategoryChartBuilder().width(1000).height(520).title(title).xAxisTitle(x).yAxisTitle(y).build();
        chart.getStyler().setYAxisLogarithmic(log);
        if (log) { // XChart draws no bars on a log axis: bars start at zero
            chart.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        }
        chart.getStyler().setLegendVisible(true);
        return chart;
    }

    private void save(CategoryChart chart, String name) throws IOException {
        BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
        md.append("![").append(name).append("](").append(name).append(".png)\n\n");
    }

    void write() throws IOException {
        Files.writeString(dir.resolve("results.md"), md);
        System.out.println("wrote " + dir.resolve("results.md"));
    }
}
