package dev.loompool.spring;

import dev.loompool.CircuitBreakerState;
import dev.loompool.PoolStats;
import dev.loompool.jdbc.HandleInfo;
import dev.loompool.jdbc.LoomPoolDataSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@code /actuator/loompool}: the pools, their settings (never a password), counts, circuit
 * breaker and bound handles; setting the circuit state and evicting idle connections are write
 * operations, off until {@code management.endpoint.loompool.access=unrestricted}.
 */
@Endpoint(id = "loompool", defaultAccess = Access.READ_ONLY)
public class LoomPoolEndpoint {

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
