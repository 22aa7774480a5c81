package dev.loompool.spring;

/**
 * Every meter a loompool publishes (DESIGN.md §5, docs/operations.md, "Metrics"), with its description: the
 * OpenTelemetry database-client names first, then loompool's own. All carry the tag
 * {@code db.client.connection.pool.name}.
 */
enum LoomPoolMeter {

    COUNT("db.client.connection.count", "Connections by state"),
    MAX("db.client.connection.max", "The most connections allowed"),
    IDLE_MIN("db.client.connection.idle.min", "Connections kept even when idle"),
    PENDING_REQUESTS("db.client.connection.pending_requests", "Requests waiting for a connection"),
    CREATE_TIME("db.client.connection.create_time", "Time to open a connection"),
    WAIT_TIME("db.client.connection.wait_time", "Time to get a connection"),
    USE_TIME("db.client.connection.use_time", "Time a connection stays bound"),
    TIMEOUTS("db.client.connection.timeouts", "Acquire timeouts"),
    HANDLES_OPEN("loompool.handles.open",
            "Logical connections open that have used a physical connection, bound or not"),
    PINNED("loompool.connections.pinned", "Physical connections pinned, by reason"),
    PINNED_DURATION("loompool.connections.pinned.duration", "How long a physical connection stayed bound while "
            + "a reason held it, one sample per binding; the per-statement reasons as their binding's length"),
    PINNED_DURATION_MAX("loompool.connections.pinned.duration.max",
            "The longest a physical connection stayed bound while a reason held it, since the pool started"),
    RECLAIMED("loompool.connections.reclaimed", "Connections reclaimed from handles dropped without close, "
            + "or (reclaimOnOwnerExit) whose last user's thread ended"),
    BREAKER_STATE("loompool.circuitbreaker.state", "1 for the circuit breaker's current state"),
    BREAKER_TRANSITIONS("loompool.circuitbreaker.transitions", "Circuit breaker state changes"),
    BREAKER_REJECTED("loompool.circuitbreaker.rejected", "Requests failed at once by the open circuit breaker");

    /** The tag every meter carries: the current OpenTelemetry attribute ({@code pool.name} is deprecated). */
    static final String POOL_NAME = "db.client.connection.pool.name";
    /** The tag of {@link #COUNT}: {@code idle} or {@code used} ({@code state} is deprecated). */
    static final String STATE = "db.client.connection.state";

    private final String meterName;
    private final String description;

    LoomPoolMeter(String meterName, String description) {
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
