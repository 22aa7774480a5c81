package dev.loompool.bench;

import dev.loompool.testsupport.PgBouncer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * P9 (issue 14): a service run as several instances, all through one PgBouncer in transaction mode
 * with 10 server connections. Eight pools in this JVM stand for eight instances, each max 8 and
 * each with 50 virtual threads of its own; a request is P3's: query, 20 ms wait outside a
 * transaction, query. A side thread samples PgBouncer's server connections to show that neither
 * pool takes more than the 10 it has.
 */
final class P9ManyInstances implements ContendedScenario {

    static final int INSTANCES = 8;
    static final int MAX_SIZE = 8;
    static final int THREADS_PER_INSTANCE = 50;
    static final int SERVER_CONNECTIONS = 10;

    @Override
    public String id() {
        return "P9";
    }

    @Override
    public String title() {
        return "8 instances (pools of max 8, 50 virtual threads each) through one PgBouncer, transaction mode, "
                + SERVER_CONNECTIONS + " server connections: query, 20 ms wait, query";
    }

    @Override
    public String target() {
        return ">= HikariCP's requests/s";
    }

    /**
     * A PgBouncer of its own per trial, so that neither pool starts on server connections the other
     * left open, and eight pools in front of it, each thread bound to one pool as to its instance.
     */
    @Override
    public Trial run(PoolKind pool, Mode mode) throws Exception {
        URI target = URI.create(Postgres.URL.substring("jdbc:".length()));
        try (PgBouncer bouncer = PgBouncer.start(target.getHost(), target.getPort() < 0 ? 5432 : target.getPort(),
                target.getPath().substring(1), SERVER_CONNECTIONS)) {
            PoolKind.Settings settings = new PoolKind.Settings(bouncer.jdbcUrl(""), null, null, 0, MAX_SIZE,
                    Duration.ofSeconds(5), true);
            List<DataSource> instances = new ArrayList<>();
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
            try {
                for (int i = 0; i < INSTANCES; i++) {
                    instances.add(pool.open(settings));
                }
                AtomicInteger maxServers = new AtomicInteger();
                AtomicReference<String> samplingError = new AtomicReference<>();
                // SHOW POOLS through psql takes some ms of CPU: every 100 ms is enough to see a peak that lasts.
                sampler.scheduleWithFixedDelay(() -> {
                    try {
                        maxServers.accumulateAndGet(bouncer.pool().servers(), Math::max);
                    } catch (Exception e) {
                        samplingError.compareAndSet(null, e.toString());
                    }
                }, 0, 100, TimeUnit.MILLISECONDS);
                AtomicInteger next = new AtomicInteger();
                // A harness-side ThreadLocal, not the pool's: it binds each load thread to its instance.
                ThreadLocal<DataSource> mine = ThreadLocal.withInitial(() -> instances.get(next.getAndIncrement() % INSTANCES));
                Trial t = Load.run(pool, mode, INSTANCES * THREADS_PER_INSTANCE, true,
                        () -> instances.stream().mapToLong(PoolKind::connectionsOpened).sum(),
                        () -> P3SlowCall.request(mine.get()));
                sampler.shutdown();
                sampler.awaitTermination(15, TimeUnit.SECONDS);
                t.extra.put("max server conns", samplingError.get() == null ? maxServers.get() : "unknown: " + samplingError.get());
                return t;
            } finally {
                sampler.shutdownNow();
                instances.forEach(PoolKind::close);
            }
        }
    }
}
