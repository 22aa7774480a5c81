package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import dev.loompool.jdbc.PinReason;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.ResultSetMetaData;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.sql.Wrapper;
import java.util.Map;
import java.util.Properties;

/**
 * The calls of a logical connection that need a physical connection only for a moment, or that
 * hand out the driver's objects or leave state on the session where no reset reaches.
 */
final class SessionCalls {

    private SessionCalls() {
    }

    static boolean isValid(LogicalConnection h, int timeout) throws SQLException {
        if (timeout < 0) {
            throw new SQLException("timeout must be >= 0, was " + timeout, "HY092");
        }
        if (!h.isOpen()) {
            return false;
        }
        if (h.physical != null) {
            try {
                return h.bind().isValid(timeout);
            } catch (SQLException e) {
                h.error(e);
                return false;
            } finally {
                h.done();
            }
        }
        return unboundValid(h, timeout);
    }

    /**
     * {@code isValid(t)} of a handle that holds no connection: it answers within t (JDBC makes the
     * argument the bound; 0 is none, and then the pool's acquireTimeout bounds it). A connection that
     * comes free in time is checked and goes back; none in time means a busy pool, which is no fault
     * of the handle: valid while the pool serves (its circuit ACTIVE, a connection made). The check
     * runs on a thread of its own, so that neither the pool's hand-out validation nor a frozen
     * network holds the caller past t: not done in time means the database did not answer, false.
     */
    private static boolean unboundValid(LogicalConnection h, int timeout) throws SQLException {
        h.ensureOpen();
        if (timeout == 0) {
            return checkAnIdleConnection(h.pool, null, 0);
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(timeout);
        // The queue wait ends a little before the caller's: a busy pool answers in time
        java.time.Duration wait = java.time.Duration.ofMillis(Math.max(1, timeout * 1000L - 100));
        java.util.concurrent.CompletableFuture<Boolean> answer = new java.util.concurrent.CompletableFuture<>();
        Thread check = new Thread(() -> {
            try {
                answer.complete(checkAnIdleConnection(h.pool, wait, timeout));
            } catch (Throwable e) {
                answer.complete(false);
            }
        }, "loompool-isValid-" + h.pool.name);
        check.setDaemon(true);
        check.start();
        try {
            return answer.get(Math.max(0, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return false; // the check goes on in the background, and gives its connection back when done
        } catch (java.util.concurrent.ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** An idle connection within {@code wait} (null: the acquireTimeout), checked within {@code seconds}, and given back. */
    private static boolean checkAnIdleConnection(dev.loompool.jdbc.internal.physical.JdbcPool pool, java.time.Duration wait,
            int seconds) {
        PhysicalConnection p;
        try {
            p = pool.acquireWithin(wait);
        } catch (SQLException e) {
            return false; // the circuit is open, the pool closed, or the database refused a connect
        }
        if (p == null) {
            return pool.serving();
        }
        boolean valid = false;
        try {
            valid = p.raw.isValid(seconds);
            return valid;
        } catch (SQLException e) {
            return false;
        } finally {
            if (!valid) {
                p.markBroken(); // retired on the way back, as any connection that failed its check
            }
            p.home().putBack(p);
        }
    }

    static <T> T unwrap(LogicalConnection h, Class<T> iface) throws SQLException {
        if (iface.isInstance(h)) {
            h.touchOwner();
            return iface.cast(h);
        }
        if (h.pool.transactionPooler) {
            throw TransactionPooling.refusedUnwrap(h.pool, iface);
        }
        Connection raw = h.bind();
        try {
            // Whoever holds the driver's object relies on this physical connection: pin it.
            return unwrapped(h, iface.isInstance(raw) ? iface.cast(raw) : raw.unwrap(iface), iface);
        } catch (SQLException e) {
            throw h.error(e);
        } finally {
            h.done();
        }
    }

    /**
     * {@code unwrap} on a statement or result set: the wrapper itself for a JDBC interface, else the
     * driver's object, whose {@code getConnection()} is the physical connection: it pins (exposed).
     */
    static <T> T unwrap(LogicalConnection h, Wrapper self, Wrapper raw, boolean closed, Class<T> iface)
            throws SQLException {
        h.touchOwner();
        if (iface.isInstance(self)) {
            return iface.cast(self);
        }
        if (closed) {
            throw new SQLException("pool '" + h.pool.name + "': cannot unwrap a closed " + kind(self)
                    + " to " + iface.getName(), "HY010");
        }
        if (h.pool.transactionPooler) {
            throw TransactionPooling.refusedUnwrap(h.pool, iface);
        }
        try {
            return unwrapped(h, iface.isInstance(raw) ? iface.cast(raw) : raw.unwrap(iface), iface);
        } catch (SQLException e) {
            throw h.error(e);
        }
    }

    static boolean isWrapperFor(LogicalConnection h, Wrapper self, Wrapper raw, Class<?> iface) throws SQLException {
        h.touchOwner();
        try {
            return iface.isInstance(self) || raw.isWrapperFor(iface);
        } catch (SQLException e) {
            throw h.error(e);
        }
    }

    private static String kind(Wrapper self) {
        return self instanceof java.sql.ResultSet ? "result set" : "statement";
    }

    static SQLWarning getWarnings(LogicalConnection h) throws SQLException {
        h.ensureOpen();
        PhysicalConnection p = h.physical;
        return p == null ? null : p.raw.getWarnings();
    }

    static void clearWarnings(LogicalConnection h) throws SQLException {
        h.ensureOpen();
        PhysicalConnection p = h.physical;
        if (p != null) {
            p.raw.clearWarnings();
        }
    }

    /**
     * A driver object that may still talk to the connection is handed out (a LOB, array, SQLXML,
     * struct): the connection is pinned until close (an array: until the next statement runs,
     * {@link Pins#arrayMade}), then reset and reused. It is wrapped, so that
     * it refuses once the handle let go of this binding (DESIGN.md §4, "Objects that outlive their
     * handle refuse").
     */
    static <T> T pinned(LogicalConnection h, T value) throws SQLException {
        if (value == null) {
            return null;
        }
        PhysicalConnection p = h.physical;
        if (value instanceof java.sql.Array && p != null) {
            Pins.arrayMade(h, p);
        } else {
            p = lend(h, value, false);
        }
        p.markLendingDriverObjects();
        return LentWrapping.wrap(h, p, h.heldBinding(), value, false);
    }

    /**
     * The driver's own object is handed out (an {@code unwrap} to a driver type): SQL and settings
     * through it bypass the pool, so the connection is pinned until close and then closed, not reused.
     */
    static <T> T exposed(LogicalConnection h, T value) throws SQLException {
        lend(h, value, true).markExposed();
        return value;
    }

    /** As {@link #exposed(LogicalConnection, Object)}, for {@code unwrap(iface)}: the pin is said to start there. */
    static <T> T unwrapped(LogicalConnection h, T value, Class<?> iface) throws SQLException {
        PhysicalConnection p = h.physical;
        if (p != null && !Pins.has(h, PinReason.EXPLICIT)) {
            Pins.add(h, PinReason.EXPLICIT, "unwrap(" + iface.getSimpleName() + ")");
        }
        return exposed(h, value);
    }

    /**
     * The connection a driver object is lent from, pinned. A result set read after its statement
     * closed may hand out such an object with nothing bound: refused, pinning nothing.
     */
    static PhysicalConnection lend(LogicalConnection h, Object value, boolean exposed) throws SQLException {
        PhysicalConnection p = h.physical;
        if (p == null) {
            throw refused(h);
        }
        Pins.add(h, PinReason.EXPLICIT, Pins.has(h, PinReason.EXPLICIT) ? null : lentLabel(value, exposed));
        return p;
    }

    /**
     * What the endpoint and a pin warning say started an explicit pin: {@code unwrap(PGConnection)},
     * {@code a Blob handed out}. Built only when the pin starts, on a path that pins until close.
     */
    private static String lentLabel(Object value, boolean exposed) {
        if (value instanceof Map) {
            return "setTypeMap()";
        }
        if (value instanceof ClientInfoCall) {
            return "setClientInfo()";
        }
        if (exposed) {
            return "the driver's " + value.getClass().getSimpleName() + " handed out";
        }
        for (Class<?> type : LENT_TYPES) {
            if (type.isInstance(value)) {
                return "a " + type.getSimpleName() + " handed out";
            }
        }
        return "a driver object handed out";
    }

    private static final Class<?>[] LENT_TYPES = {java.sql.NClob.class, java.sql.Clob.class, java.sql.Blob.class,
        java.sql.SQLXML.class, java.sql.Struct.class, java.sql.Array.class, java.sql.Ref.class, java.sql.RowId.class};

    /** A result set read after its statement closed: its connection went back, nothing is lent from it. */
    static SQLException refused(LogicalConnection h) {
        return new SQLException("pool '" + h.pool.name + "': the statement of this result set was closed and its "
                + "connection went back to the pool; read LOBs, arrays and metadata while the statement is open",
                "HY010");
    }

    /**
     * What a statement's or result set's getter returned. A LOB, array, SQLXML, struct, ref or
     * metadata object may still talk to the connection (pgjdbc's large objects do; its result-set
     * and parameter metadata query the connection when asked): it is wrapped ({@link LentWrapping}), so
     * that it refuses once its binding ended, and pins while the handle is open, as one the handle
     * created does; metadata pins no longer than its statement, and an array whose values were read
     * at once not at all. A result set (a refcursor from
     * {@code getObject}) is wrapped as its owner's.
     * A statement or connection is the driver's own: exposed.
     */
    static <T> T live(LogicalConnection h, ResultSetOwner owner, T value, boolean ownerClosed) throws SQLException {
        if (value == null) {
            return null;
        }
        boolean exposes = value instanceof Statement || value instanceof Connection;
        boolean resultSet = value instanceof java.sql.ResultSet;
        boolean lent = LentWrapping.wraps(value);
        if (!exposes && !resultSet && !lent) {
            return value;
        }
        if (ownerClosed || h.physical == null) {
            // Its statement closed: the connection it came from went back, and what is bound now
            // may be another one. Nothing is lent from it.
            throw refused(h);
        }
        if (exposes) {
            return exposed(h, value);
        }
        if (resultSet) {
            @SuppressWarnings("unchecked")
            T rs = (T) new DelegatingResultSet((java.sql.ResultSet) value, owner);
            return rs;
        }
        PhysicalConnection p = h.physical;
        T wrapped = LentWrapping.wrap(h, p, h.heldBinding(), value, true);
        if (wrapped instanceof LentArray a && a.readAtOnce()) {
            // Its values were read now and answer from memory; only a call with a type map needs the
            // driver, and refuses once the binding ended: no pin (Hibernate reading an array column
            // under open-in-view would keep the connection for the rest of the request).
            return wrapped;
        }
        if (!(value instanceof ResultSetMetaData || value instanceof ParameterMetaData)) {
            lend(h, value, false).markLendingDriverObjects();
        }
        // Metadata pins nothing of its own: it comes from an open statement, which pins, and it
        // describes that statement. It answers while the handle keeps this binding, and refuses
        // once the connection went back (pgjdbc's queries the connection when asked isNullable or
        // a base name): never in another borrower's session. Pinned until the handle closed, the
        // generated keys' metadata Hibernate reads after an IDENTITY insert, or a native query's,
        // kept an open-in-view session's connection for the rest of the request (issue 28).
        return wrapped;
    }

    /**
     * {@code getObject(…, type)}: as {@link #live}, unless the caller asked for a driver class the
     * wrapper is not (pgjdbc's {@code PgArray}): then the driver's own object, which exposes.
     */
    static <T> T liveAs(LogicalConnection h, ResultSetOwner owner, T value, Class<?> type, boolean ownerClosed)
            throws SQLException {
        T wrapped = live(h, owner, value, ownerClosed);
        return wrapped == null || type == null || type.isInstance(wrapped) ? wrapped : exposed(h, value);
    }

    /** Copies of what the driver keeps live (pgjdbc's type map and client info): changes go through the setters. */
    static <K, V> Map<K, V> copyOf(Map<K, V> live) {
        return live == null ? null : new java.util.HashMap<>(live);
    }

    static Properties copyOf(Properties live) {
        if (live == null) {
            return null;
        }
        Properties copy = new Properties();
        copy.putAll(live);
        return copy;
    }

    static boolean isWrapperFor(LogicalConnection h, Class<?> iface) throws SQLException {
        if (iface.isInstance(h)) {
            h.touchOwner();
            return true;
        }
        try {
            return h.bind().isWrapperFor(iface);
        } catch (SQLException e) {
            throw h.error(e);
        } finally {
            h.done();
        }
    }

    static void setTypeMap(LogicalConnection h, Map<String, Class<?>> map) throws SQLException {
        try {
            h.bind().setTypeMap(map);
            sessionChanged(h, "setTypeMap()");
            exposed(h, map); // the driver keeps it, where no session reset reaches
        } catch (SQLException e) {
            throw h.error(e);
        } finally {
            h.done(); // refused: nothing pins the connection it may have bound (done, the session pin keeps it)
        }
    }

    /** Something changed the session behind the handle: pin until close, and reset before reuse. */
    private static void sessionChanged(LogicalConnection h, String call) {
        Pins.add(h, PinReason.SESSION_STATE, call);
        h.physical.noteSessionState();
    }

    @FunctionalInterface
    interface ClientInfoCall {
        void apply(Connection raw) throws SQLException;
    }

    /** Client info lives on the session, or in the driver where no reset reaches: the connection is not reused. */
    /**
     * A run of the handle ({@link HandleLife#runStarted}): a statement closed on another thread
     * meanwhile leaves the release to its end, so the session pin is in place before the release
     * check, and the call never lands on a connection lent to somebody else.
     */
    static void clientInfo(LogicalConnection h, ClientInfoCall call) throws SQLClientInfoException {
        h.runStarted();
        try {
            call.apply(h.bindInRun());
            sessionChanged(h, "setClientInfo()");
            exposed(h, call);
        } catch (SQLClientInfoException e) {
            throw e;
        } catch (SQLException e) {
            throw new SQLClientInfoException(e.getMessage(), e.getSQLState(), e.getErrorCode(), Map.of(), h.error(e));
        } finally {
            h.runEnded();
            h.done(); // refused: nothing pins the connection it may have bound (done, the session pin keeps it)
        }
    }
}
