package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.BrokenConnections;
import dev.loompool.jdbc.internal.driver.FunctionCatalog;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.jdbc.internal.sql.SqlDialect;
import dev.loompool.jdbc.internal.sql.SqlFunctions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool's first read of its database's functions, views and operators (DESIGN.md §4,
 * "Classifying SQL: an allowlist"), off the connect path (issue 39). It costs four to seven round
 * trips, which over a slow link a cold pool's first caller waited for before its first query: now
 * the first connection only says which database it is, and the catalog is read on the first
 * connection that comes back, in its release check, after the statement that let it go (as the
 * read after DDL is); {@code start()} called by the application reads it before it returns.
 * Shared by a pool and its replicas, as their classifier is.
 *
 * <p>Until a table read from the catalog is in use ({@link #known}), every statement is session
 * state: the built-in table knows no function on PostgreSQL (every call pins), but nothing of a
 * view, a trigger or an operator on either database, and a statement that names one could
 * change the session unseen. Pinned, its connection is reset when its handle closes: an extra
 * pin only costs a connection for a while. Later reads are the classifier's refresh, as before:
 * after DDL through the pool, and every minute ({@link SqlClassifier#refreshDue}). DDL while the
 * first read runs is noted as during any refresh, and read again after it.
 *
 * <p>Behind a pooler in transaction mode, where session state is refused instead of pinned, and
 * for a database without a catalog read, the table is read when the first connection is made, as
 * before.
 */
public final class CatalogRead {

    /** JdbcPool's: the catalog's lines stay under the logger they were always written to. */
    private static final Logger log = LoggerFactory.getLogger(JdbcPool.class);

    private enum State {
        /** No connection made yet. */
        UNREAD,
        /** The classifier granted this the read; it waits for a connection to come back. */
        WAITING,
        /** Reading, on the connection that came back (or that start() borrowed). */
        READING,
        /** Read, or left to the classifier's refresh after a failure (whose success counts too). */
        HANDED_OVER
    }

    private final SqlClassifier classifier;
    private final AtomicReference<State> state = new AtomicReference<>(State.UNREAD);
    /** A table read from the catalog is in use: statements are classified by it. */
    private volatile boolean known;

    /** Tests of a pool that knows its database: read when the first connection is made, as before issue 39. */
    private final boolean atConnect;

    /** {@code atConnect}: the first connection reads it before it is handed out (tests), else later. */
    public CatalogRead(SqlClassifier classifier, boolean atConnect) {
        this.classifier = classifier;
        this.atConnect = atConnect;
    }

    /** Whether the first connection reads it before it is handed out: tests; a pooler; a database without a catalog read. */
    boolean atConnect(SqlDialect dialect, boolean behindPooler) {
        return atConnect || behindPooler || dialect == SqlDialect.OTHER;
    }

    public SqlClassifier classifier() {
        return classifier;
    }

    /** Whether statements may be classified by the table: else every one is session state. One volatile read per statement. */
    public boolean known() {
        return known;
    }

    /** A table that needs no read of the catalog, or was read when the connection was made: in use from now on. */
    void readAtConnect() {
        state.set(State.HANDED_OVER);
        known = true;
    }

    /**
     * The first connection said the database has a catalog to read: nothing is known yet (every
     * statement pins, DDL through the pool is noted), and the read waits for a connection.
     */
    void deferred(long now) {
        if (!state.compareAndSet(State.UNREAD, State.WAITING)) {
            return; // a replica's first connection, or another first one made at the same time
        }
        classifier.catalogReadFailed(now); // nothing known; DDL from now on asks for another read
        if (!classifier.refreshDue(now)) { // the grant: no return or check reads it meanwhile
            state.set(State.HANDED_OVER); // somebody's refresh got there first, and will read it
        }
    }

    /** A read of the table succeeded (the first one, or a refresh): statements are classified by it. */
    void readSucceeded() {
        known = true;
    }

    /**
     * The first read, on {@code p}, the first connection back in {@code pool} once its release
     * check undid what its holder left: on the releasing thread, as the read after DDL is, once
     * the statement that let the connection go has finished. A connection borrowed for it would
     * show as one in use, or make the pool open another for the next caller. One volatile read
     * when there is nothing to do.
     */
    void readOnReturn(JdbcPool pool, PhysicalConnection p, long now) throws Retired {
        if (state.get() == State.WAITING && state.compareAndSet(State.WAITING, State.READING)) {
            read(pool, p, now);
        }
    }

    /**
     * Reads now, on a connection borrowed for it, if the read waits for one: {@code start()} called
     * by the application warms the catalog too, before it returns, with nobody's query waiting.
     * With none free within the acquire timeout the first return reads it.
     */
    public void readNow(JdbcPool pool) {
        if (state.get() != State.WAITING || !state.compareAndSet(State.WAITING, State.READING)) {
            return;
        }
        PhysicalConnection p;
        try {
            p = pool.acquireWithin(Duration.ofNanos(Math.max(pool.acquireTimeoutNanos(), 1)));
        } catch (SQLException e) {
            p = null; // the start's own error, if any, was the caller's already
        }
        if (p == null) {
            state.set(State.WAITING);
            return;
        }
        try {
            read(pool, p, pool.clock.nanoTime());
        } catch (Retired broken) {
            p.markBroken(); // retired on its way back
        } finally {
            pool.putBack(p);
        }
    }

    /** Reads on {@code p} with the classifier's grant; a failure leaves nothing known, and the next return reads. */
    private void read(JdbcPool pool, PhysicalConnection p, long now) throws Retired {
        SqlFunctions read = null;
        try {
            read = FunctionCatalog.read(p.raw, classifier.dialect());
        } catch (SQLException e) {
            log.warn("pool '{}': could not read the database's catalog of functions and views; every statement keeps "
                    + "its connection until it is read (at the next connection's return): SQLState {}: {}", pool.name,
                    e.getSQLState(), pool.factory.secrets().mask(JdbcUrls.redact(e.getMessage())));
            if (BrokenConnections.lost(p.raw, e, pool.validationSeconds())) {
                throw new Retired("broken while the catalog was read: " + e.getSQLState());
            }
        } finally {
            classifier.refreshDone(now, read);
            if (read != null) {
                known = true;
            } else {
                classifier.catalogReadFailed(now); // the next return reads, as after any failed first read
            }
            state.set(State.HANDED_OVER);
        }
    }
}
