package dev.loompool.spring;

/**
 * HikariCP's Micrometer meters, which a pool also publishes when {@code loompool.metrics.hikari-compatible}
 * is on (docs/operations.md, "Metrics"), so that dashboards and alerts built on HikariCP keep working. Names and
 * descriptions are HikariCP 7's own (its {@code MicrometerMetricsTracker}), and so is the meaning;
 * no base unit, as there: a unit would change the names a registry exports (Prometheus).
 */
enum HikariMeter {

    TOTAL("hikaricp.connections", "Total connections"),
    ACTIVE("hikaricp.connections.active", "Active connections"),
    IDLE("hikaricp.connections.idle", "Idle connections"),
    PENDING("hikaricp.connections.pending", "Pending threads"),
    MAX("hikaricp.connections.max", "Max connections"),
    MIN("hikaricp.connections.min", "Min connections"),
    TIMEOUT("hikaricp.connections.timeout", "Connection timeout total count"),
    /** One sample per physical borrow, its wait; and, as HikariCP records it, the wait of each acquire that timed out. */
    ACQUIRE("hikaricp.connections.acquire", "Connection acquire time"),
    USAGE("hikaricp.connections.usage", "Connection usage time"),
    CREATION("hikaricp.connections.creation", "Connection creation time");

    /** HikariCP's one tag: the pool's name. */
    static final String POOL = "pool";

    private final String meterName;
    private final String description;

    HikariMeter(String meterName, String description) {
        this.meterName = meterName;
        this.description = description;
    }

    String meterName() {
        return meterName;
    }

    String description() {
        return description;
    }
}
