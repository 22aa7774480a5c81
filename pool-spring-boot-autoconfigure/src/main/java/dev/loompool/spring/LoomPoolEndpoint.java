package dev.loompool.spring;

import dev.loompool.CircuitBreakerState;
import dev.loompool.PoolStats;
import dev.loompool.jdbc.HandleInfo;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.convert.DurationStyle;

/**
 * {@code /actuator/loompool}: the pools, their settings (never a password), counts, circuit
 * breaker and bound handles; setting the circuit state, changing the limits and evicting idle
 * connections are write operations, off until {@code management.endpoint.loompool.access=unrestricted}.
 */
@Endpoint(id = "loompool", defaultAccess = Access.READ_ONLY)
public class LoomPoolEndpoint {

    private static final Logger log = LoggerFactory.getLogger(LoomPoolEndpoint.class);

    private final Supplier<Map<String, LoomPoolDataSource>> dataSources;

    LoomPoolEndpoint(Supplier<Map<String, LoomPoolDataSource>> dataSources) {
        this.dataSources = dataSources;
    }

    private Map<String, LoomPoolDataSource> byPoolName() {
        Map<String, LoomPoolDataSource> pools = new LinkedHashMap<>();
        dataSources.get().values().forEach(ds -> pools.put(ds.getPoolName(), ds));
        return pools;
    }

    /** {@code GET /actuator/loompool}: every pool, with its state and counts. */
    @ReadOperation
    public Map<String, Object> pools() {
        Map<String, Object> pools = new LinkedHashMap<>();
        byPoolName().forEach((name, ds) -> pools.put(name, summary(ds)));
        return Map.of("pools", pools);
    }

    /** {@code GET /actuator/loompool/{name}}: one pool in full; 404 for an unknown name. */
    @ReadOperation
    public Map<String, Object> pool(@Selector String name) {
        LoomPoolDataSource ds = byPoolName().get(name);
        if (ds == null) {
            return null;
        }
        Map<String, Object> pool = summary(ds);
        pool.put("settings", EndpointSettings.of(ds)); // every effective setting, never a secret
        if (ds.isRunning()) {
            pool.put("pinned", ds.getPinnedConnections());
            pool.put("reclaimed", ds.getReclaimedConnections());
            List<HandleInfo> handles = ds.getBoundHandles();
            pool.put("boundHandles", handles.stream().map(LoomPoolEndpoint::handle).toList());
        }
        return pool;
    }

    /** One bound handle: who holds it, why, since when, and the masked statement that pinned it; absent facts are left out. */
    private static Map<String, Object> handle(HandleInfo h) {
        Map<String, Object> handle = new LinkedHashMap<>();
        handle.put("ownerThread", h.ownerThread());
        handle.put("boundMillis", h.bound().toMillis());
        handle.put("pins", h.pins());
        if (h.longestPin() != null) {
            handle.put("longestPin", h.longestPin());
            handle.put("longestPinMillis", h.longestPinFor().toMillis());
        }
        if (h.pinStatement() != null) {
            handle.put("pinStatement", h.pinStatement());
        }
        if (h.bindSite() != null) {
            handle.put("bindSite", h.bindSite());
        }
        return handle;
    }

    /** {@code POST /actuator/loompool/{name}} with {@code {"state":"ACTIVE|INACTIVE|RECOVERING"}}. */
    @WriteOperation
    public Map<String, Object> setState(@Selector String name, String state) {
        LoomPoolDataSource ds = byPoolName().get(name);
        if (ds == null || !ds.isRunning()) {
            return null;
        }
        CircuitBreakerState target;
        try {
            target = CircuitBreakerState.valueOf(state.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            String reason = "state must be one of ACTIVE, INACTIVE, RECOVERING, was " + state;
            throw new InvalidEndpointRequestException(reason, reason); // 400, not 500
        }
        switch (target) {
            case ACTIVE -> ds.getPool().activate();
            case INACTIVE -> ds.getPool().deactivate();
            default -> ds.getPool().recover();
        }
        return summary(ds);
    }

    /** {@code DELETE /actuator/loompool/{name}/idle}: closes the idle connections; the pool refills to min-size. */
    @DeleteOperation
    public Map<String, Object> evict(@Selector String name, @Selector String what) {
        LoomPoolDataSource ds = byPoolName().get(name);
        if (ds == null || !"idle".equals(what)) {
            return null;
        }
        return Map.of("evicted", ds.evictIdle());
    }

    /**
     * {@code POST /actuator/loompool/{name}/limits} with any of {@code minSize}, {@code maxSize},
     * {@code acquireTimeout} and {@code leakDetectionThreshold} ({@code "5s"}, {@code "PT5S"} or
     * milliseconds, as in configuration): changes the running pool's limits, as the MXBean's
     * attributes do. Every value is checked before any is applied, so a refused one is a 400 that
     * changes nothing.
     */
    @WriteOperation
    public Map<String, Object> changeLimits(@Selector String name, @Selector String what, @Nullable Integer minSize,
            @Nullable Integer maxSize, @Nullable String acquireTimeout, @Nullable String leakDetectionThreshold) {
        LoomPoolDataSource ds = byPoolName().get(name);
        if (ds == null || !ds.isRunning() || !"limits".equals(what)) {
            return null;
        }
        if (minSize != null && maxSize != null && minSize > maxSize) {
            throw refused("minSize must be <= maxSize, was minSize=" + minSize + ", maxSize=" + maxSize);
        }
        Duration timeout = duration("acquireTimeout", acquireTimeout);
        Duration leak = duration("leakDetectionThreshold", leakDetectionThreshold);
        Map<String, Object> before = limits(ds);
        Integer minBefore = ds.getMinSize();
        int maxBefore = ds.getMaxSize();
        Duration timeoutBefore = ds.getAcquireTimeout();
        Duration leakBefore = ds.getLeakDetectionThreshold();
        try {
            sizes(ds, minSize, maxSize);
            if (timeout != null) {
                ds.setAcquireTimeout(timeout);
            }
            if (leak != null) {
                ds.setLeakDetectionThreshold(leak);
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            // The pool refused one (a replica's sizes, a change made meanwhile through JMX): the ones
            // already applied are put back, so the request changes nothing.
            restore(ds, minSize != null ? minBefore : null, maxBefore, timeoutBefore, leakBefore);
            throw refused(e.getMessage());
        }
        log.info("pool '{}': limits changed through the endpoint from {} to {}", name, before, limits(ds));
        return limits(ds);
    }

    /**
     * Sets the sizes given, in the order that keeps minSize <= maxSize after the first setter: max
     * first when it grows or min shrinks below it, min first otherwise. A minSize never set is left
     * unset, so it follows maxSize as the setter and JMX have it do.
     */
    private static void sizes(LoomPoolDataSource ds, @Nullable Integer min, @Nullable Integer max) {
        if (min != null && max != null && min > ds.getMaxSize()) {
            ds.setMaxSize(max);
            ds.setMinSize(min);
            return;
        }
        if (min != null) {
            ds.setMinSize(min);
        }
        if (max != null) {
            ds.setMaxSize(max);
        }
    }

    private static void restore(LoomPoolDataSource ds, @Nullable Integer min, int max, Duration timeout, Duration leak) {
        try {
            sizes(ds, min, max);
            ds.setAcquireTimeout(timeout);
            ds.setLeakDetectionThreshold(leak);
        } catch (RuntimeException e) {
            log.warn("pool '{}': a refused limits change could not be fully undone: {}", ds.getPoolName(), e.getMessage());
        }
    }

    private static Map<String, Object> limits(LoomPoolDataSource ds) {
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("minSize", ds.getMinSize());
        limits.put("maxSize", ds.getMaxSize());
        limits.put("acquireTimeout", ds.getAcquireTimeout().toString());
        limits.put("leakDetectionThreshold", ds.getLeakDetectionThreshold().toString());
        return limits;
    }

    private static Duration duration(String key, String text) {
        if (text == null) {
            return null;
        }
        Duration d;
        try {
            d = DurationStyle.detectAndParse(text.trim());
        } catch (IllegalArgumentException e) {
            throw refused(key + " must be a duration (5s, PT5S, or milliseconds), was " + text);
        }
        if (d.isNegative()) {
            throw refused(key + " must be >= 0, was " + text);
        }
        return d;
    }

    /** A 400 for the caller, not a 500. */
    private static InvalidEndpointRequestException refused(String reason) {
        return new InvalidEndpointRequestException(reason, reason);
    }

    private static Map<String, Object> summary(LoomPoolDataSource ds) {
        Map<String, Object> pool = new LinkedHashMap<>();
        pool.put("running", ds.isRunning());
        if (ds.isRunning()) {
            PoolStats s = ds.getPool().stats();
            pool.put("circuitBreaker", ds.getPool().state().name());
            pool.put("total", s.total());
            pool.put("idle", s.idle());
            pool.put("inUse", s.inUse());
            pool.put("pending", s.pending());
            pool.put("openHandles", ds.getOpenHandles());
            if (!ds.getReplicas().isEmpty()) {
                pool.put("replicas", ds.getReplicaPools().stream().map(r -> Map.of(
                        "name", r.name(),
                        "circuitBreaker", r.state().name(),
                        "total", r.stats().total(),
                        "idle", r.stats().idle(),
                        "inUse", r.stats().inUse(),
                        "pending", r.stats().pending())).toList());
            }
        }
        return pool;
    }
}
