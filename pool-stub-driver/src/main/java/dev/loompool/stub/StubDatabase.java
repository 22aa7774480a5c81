package dev.loompool.stub;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The state behind {@code jdbc:stub:NAME} ({@link StubDriver#database}): every connect attempt and
 * physical connection made, the failures to come, and how its connections behave. Settings apply
 * to the connections made after them.
 */
public final class StubDatabase {

    private final String name;
    private final AtomicInteger connects = new AtomicInteger();
    private final List<StubConnection> connections = new CopyOnWriteArrayList<>();
    private final BlockingQueue<SQLException> connectFailures = new LinkedBlockingQueue<>();
    private volatile String requiredPassword;
    private volatile boolean wireReadable = true;
    private volatile boolean strict = true;
    private volatile long queryNanos;
    private volatile String forwardUrl;
    /** While true every connect is refused, as by a database that is not running. */
    private volatile boolean down;

    StubDatabase(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    /** {@code jdbc:stub:NAME}. */
    public String url() {
        return StubDriver.PREFIX + name;
    }

    /**
     * Cheap connections, for benchmarks ({@link StubConnection}): no checks, no log, no counts, and no
     * transaction state told (as a driver that cannot), so that a benchmark measures the pool, not the
     * stub; each query parks its thread for {@code queryTime} (zero: returns at once), as a database's
     * round trip would.
     */
    public StubDatabase cheap(Duration queryTime) {
        strict = false;
        wireReadable = false;
        queryNanos = queryTime.toNanos();
        return this;
    }

    /**
     * Connects are counted, then made by the real driver of {@code realUrl}: for counting how often a
     * pool knocks on a database that is down.
     */
    public StubDatabase forwardTo(String realUrl) {
        forwardUrl = realUrl;
        return this;
    }

    /** Whether its connections tell their transaction state as pgjdbc does (the default) or hide it as a driver that cannot. */
    public void wireReadable(boolean readable) {
        wireReadable = readable;
    }

    /** From now on, connects with another password fail with SQLState 28P01, as PostgreSQL's do. */
    public void requirePassword(String password) {
        requiredPassword = password;
    }

    /** The next connect throws {@code failure}; called again, the one after that too, and so on. */
    public void failNextConnect(SQLException failure) {
        connectFailures.add(failure);
    }

    /**
     * From now on every connect is refused with SQLState 08001, as pgjdbc refuses one to a server
     * that is not listening, until {@link #up()}: a database that is down, for start and outage tests.
     */
    public void down() {
        down = true;
    }

    /** Connects succeed again (a database that came back). */
    public void up() {
        down = false;
    }

    /** Connect attempts so far, the failed ones included. */
    public int connects() {
        return connects.get();
    }

    /** The {@code id}-th connection made, from 1. */
    public StubConnection connection(int id) {
        return connections.get(id - 1);
    }

    /** The connection made last. */
    public StubConnection latest() {
        return connections.get(connections.size() - 1);
    }

    /** How many of its connections are not closed. */
    public long open() {
        return connections.stream().filter(c -> !c.closed()).count();
    }

    Connection connect(Properties info) throws SQLException {
        connects.incrementAndGet();
        String forward = forwardUrl;
        if (forward != null) {
            return DriverManager.getConnection(forward, info);
        }
        String password = info.getProperty("password");
        info.setProperty("password", "mutated-by-driver"); // real drivers mutate what they get
        if (down) {
            throw new SQLException("Connection to stub database " + name + " refused. Check that it is running.",
                    "08001"); // connection_exception: sqlclient_unable_to_establish_sqlconnection
        }
        SQLException failure = connectFailures.poll();
        if (failure != null) {
            throw failure;
        }
        if (requiredPassword != null && !requiredPassword.equals(password)) {
            throw new SQLException("password authentication failed for user \"" + info.getProperty("user") + "\"",
                    "28P01"); // PostgreSQL's invalid_password
        }
        int id = connections.size() + 1;
        StubConnection c = wireReadable ? new StubConnection.WireReadable(id, strict, queryNanos)
                : new StubConnection(id, strict, queryNanos);
        connections.add(c);
        return c;
    }
}
