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
 * (the codegen module's DelegateGenerator): {@link #enter()}, the call, errors through {@link #error},
 * {@link #leave} in a {@code finally}. Arrays are {@link LentArray}, written by hand. Each call is
 * a run of the handle, as a statement is, so that a close on another thread or the reclaimer never
 * hands the connection to its next borrower while a call is on its way to it.
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
     * Before every call on the driver's object: the call becomes a run of the handle that holds the
     * binding it was made under ({@link HandleLife#runStarted}), and only then is the binding checked,
     * as a statement does: a release of that binding on another thread (a close, the reclaimer)
     * either ended it first, and the call refuses, or sees the run and waits for it to end before the
     * connection goes back (the reclaimer of an ended owner leaves the handle alone while it runs).
     * So the call never lands in the session of the connection's next borrower. Its thread becomes
     * the handle's user (which waits out a reclaimer deciding, and refuses if it took the handle).
     * The handle is held for the call only: one that was dropped and collected is not found, and the
     * call refuses (its connection is about to be reclaimed and rolled back). Pair with
     * {@link #leave} in a {@code finally}. Per call: two atomic adds on the handle's run count, no
     * allocation.
     *
     * @return the handle whose run the call is
     */
    final LogicalConnection enter() throws SQLException {
        LogicalConnection h = live() ? (LogicalConnection) physical.holder() : null;
        if (h == null) {
            throw LentWrapping.gone(poolName, kind);
        }
        h.runStarted();
        try {
            if (!live()) { // ended (and maybe lent to another) between the first look and the count
                throw LentWrapping.gone(poolName, kind);
            }
            h.touchOwner();
        } catch (SQLException | RuntimeException | Error e) {
            h.runEnded();
            throw e;
        }
        return h;
    }

    /** After the call {@link #enter} began: the run ends (and makes a release it held off, if one was asked for). */
    final void leave(LogicalConnection h) {
        h.runEnded();
    }

    /**
     * That the binding it was made under still holds, for an object going back into the driver
     * ({@link LentWrapping#driver}, {@link LentWrapping#kept}): checked, not held, since the call it
     * goes into is the statement's.
     */
    final void check() throws SQLException {
        leave(enter());
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
        LogicalConnection h;
        try {
            h = enter(); // a run, as any call: a release cannot hand the connection on under the free
        } catch (SQLException ended) {
            return; // the binding ended (or the handle went): the object went with it
        }
        try {
            free.free();
        } catch (SQLException e) {
            throw error(e);
        } finally {
            leave(h);
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
        LogicalConnection h = enter();
        try {
            Wrapper raw = (Wrapper) delegate;
            return SessionCalls.unwrapped(h, iface.isInstance(raw) ? iface.cast(raw) : raw.unwrap(iface), iface);
        } catch (SQLException e) {
            throw error(e);
        } finally {
            leave(h);
        }
    }

    public final boolean isWrapperFor(Class<?> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return true;
        }
        LogicalConnection h = enter();
        try {
            return ((Wrapper) delegate).isWrapperFor(iface);
        } catch (SQLException e) {
            throw error(e);
        } finally {
            leave(h);
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
