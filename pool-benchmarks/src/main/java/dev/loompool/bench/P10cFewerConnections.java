package dev.loompool.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * P10c: P10's application (bench-app) with loompool given fewer connections than HikariCP:
 * loompool at min = max 2 and at 5 against HikariCP at min = max 10, in each of P10's variants. A
 * pool that lets a connection go between a request's transactions, and while its handle only
 * waits, should serve as many requests on 2 connections as one that holds a connection for the
 * whole request does on 10, and more on 5. Each trial is P10's (a fresh database, the application
 * in a JVM of its own, HTTP load), the three contenders alternating round by round.
 */
final class P10cFewerConnections implements SizedScenario {

    /** loompool's sizes; HikariCP runs at P10's. */
    static final int FEWEST = 2;
    static final int FEWER = 5;
    /** What loompool at {@link #FEWER} must reach, as a multiple of HikariCP's requests/s: "clearly ahead", read as 10 % more. */
    static final double FEWER_NEED = 1.1;

    private static final Contender HIKARI = new Contender(PoolKind.HIKARI, P10RealApp.SIZE);
    private static final List<Contender> CONTENDERS = List.of(new Contender(PoolKind.LOOMPOOL, FEWEST),
            new Contender(PoolKind.LOOMPOOL, FEWER), HIKARI);

    private final P10RealApp app;

    P10cFewerConnections(P10RealApp app) {
        this.app = app;
    }

    /** One per variant of P10's run in this mode (the quick run's one); {@code jfr} as P10's. */
    static List<Scenario> scenarios(Mode mode, Path jfr) {
        List<Scenario> list = new ArrayList<>();
        for (P10RealApp.Variant v : P10RealApp.variants(mode)) {
            list.add(new P10cFewerConnections(new P10RealApp(v, jfr)));
        }
        return list;
    }

    @Override
    public String id() {
        return "P10c" + app.variant.id.substring("P10".length());
    }

    @Override
    public String group() {
        return "P10c";
    }

    @Override
    public String title() {
        return "Spring Boot JPA application (bench-app), " + app.variant.words + ", loompool at min = max " + FEWEST + " and "
                + FEWER + " against HikariCP at min = max " + HIKARI.size() + ", " + (app.variant.slow ? "every request /slow"
                : "40 % list, 40 % detail, 20 % writes") + "; HTTP clients on virtual threads";
    }

    @Override
    public String target() {
        return String.format("loompool@%d >= 1.0x %s's requests/s with a p99 no worse; loompool@%d >= %.1fx (clearly ahead); "
                + "0 connections opened per 1,000 requests", FEWEST, HIKARI.label(), FEWER, FEWER_NEED);
    }

    @Override
    public List<Contender> contenders() {
        return CONTENDERS;
    }

    @Override
    public Contender baseline() {
        return HIKARI;
    }

    @Override
    public Trial run(Contender contender, Mode mode) throws Exception {
        return app.trial(id(), contender.pool(), contender.size(), mode);
    }
}
