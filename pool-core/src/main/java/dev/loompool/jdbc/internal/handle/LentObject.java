package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import java.sql.SQLException;
import java.sql.Wrapper;

/**
 * A driver object that outlives the call that made it (DESIGN.md §4, "Objects that outlive their
 * handle refuse"): a LOB, {@code SQLXML}, struct, ref, or result-set or parameter metadata. It
 * remembers the physical connection and the binding it was made under, and every call first checks
 * that this binding still holds: once the handle let go of the connection (closed, reclaimed, or
 * released it), the connection may be the next borrower's, and a late call would read or write in
 * that borrower's session (a large object descriptor, pgjdbc's lazy catalog queries). Then it
 * refuses, with the way out, as the plain driver does once its connection is closed.
 *
 * <p>The final leaves ({@code LentBlob}, {@code LentClob}, …) are generated at build time
 * (codegen/DelegateGenerator.java): {@link #check()}, the call, errors through {@link #error}.
 * Arrays are {@link LentArray}, written by hand. A cross-thread close racing a call already under
 * way is not covered: JDBC objects are for one thread at a time.
 */
abstract class LentObject<T> {

    /** The driver's object: what goes back into the driver when it is a parameter ({@link LentWrapping#driver}). */
    final T delegate;
    /**
     * The handle is not held: an object the application keeps must not keep a handle it dropped
     * from being collected and reclaimed. While the binding holds, the connection's holder is the handle.
     */
    private final PhysicalConnection physical;
    private final long binding;
    /** What it is, for the refusal: {@code Blob}, {@code ResultSetMetaData}, … */
    private final String kind;
    final String poolName;

    LentObject(T delegate, LogicalConnection handle, PhysicalConnection physical, long binding, String kind) {
        this.delegate = delegate;
        this.physical = physical;
        this.binding = binding;
        this.kind = kind;
        this.poolName = handle.pool.name;
    }

    /**
     * Before every call: its binding must still hold, and its thread becomes the handle's user
     * (which waits out a reclaimer deciding, and refuses if the reclaimer took the handle).
     */
    final void check() throws SQLException {
        if (!live()) {
            throw LentWrapping.gone(poolName, kind);
        }
        LogicalConnection h = (LogicalConnection) physical.holder();
        if (h != null) {
            h.touchOwner();
        }
        if (!live()) {
            throw LentWrapping.gone(poolName, kind);
        }
    }

    /** Whether the binding it was made under still holds the connection. */
    final boolean live() {
        return physical.binding() == binding;
    }

    /** Every SQLException from the driver passes here (after a check that passed): a lost connection is dropped. */
    final SQLException error(SQLException e) {
        LogicalConnection h = live() ? (LogicalConnection) physical.holder() : null;
        return h == null ? e : h.error(e);
    }

    /**
     * {@code free()}: the driver's when the binding holds; once it ended, the object went with it
     * (JDBC ends LOBs with their transaction), and freeing it now would close a descriptor of the
     * next borrower's session: nothing to do.
     */
    final void freeIfLive(FreeCall free) throws SQLException {
        if (live()) {
            try {
                free.free();
            } catch (SQLException e) {
                throw error(e);
            }
        }
    }

    @FunctionalInterface
    interface FreeCall {
        void free() throws SQLException;
    }

    /**
     * {@code unwrap} for the metadata ones (a {@link Wrapper}): this object for a JDBC interface;
     * the driver's own object otherwise, which nothing checks any more: its connection is exposed.
     */
    public final <U> U unwrap(Class<U> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        check();
        LogicalConnection h = (LogicalConnection) physical.holder();
        if (h == null) {
            throw LentWrapping.gone(poolName, kind);
        }
        try {
            Wrapper raw = (Wrapper) delegate;
            return SessionCalls.unwrapped(h, iface.isInstance(raw) ? iface.cast(raw) : raw.unwrap(iface), iface);
        } catch (SQLException e) {
            throw error(e);
        }
    }

    public final boolean isWrapperFor(Class<?> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return true;
        }
        check();
        try {
            return ((Wrapper) delegate).isWrapperFor(iface);
        } catch (SQLException e) {
            throw error(e);
        }
    }

    /**
     * The driver's: an application may write it out (pgjdbc's array literal) or compare it, and
     * must get what the plain driver gives.
     */
    @Override
    public String toString() {
        return String.valueOf(delegate);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LentObject<?> other ? delegate.equals(other.delegate) : delegate.equals(o);
    }

    @Override
    public int hashCode() {
        return delegate.hashCode();
    }
}
