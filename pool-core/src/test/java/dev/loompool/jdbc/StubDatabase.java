package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** The state behind {@code jdbc:stub:NAME}: every physical connection made, and failures to come. */
final class StubDatabase {

    final String name;
    final AtomicInteger connects = new AtomicInteger();
    final List<StubConnection> connections = new CopyOnWriteArrayList<>();
    final BlockingQueue<SQLException> connectFailures = new LinkedBlockingQueue<>();
    /** When set, connects with another password fail with SQLState 28P01. */
    volatile String requiredPassword;
    volatile String productName = "Stub";
    /** Whether its connections tell their transaction state as pgjdbc does; false: as a driver that cannot. */
    volatile boolean wireReadable = true;

    StubDatabase(String name) {
        this.name = name;
    }

    Connection connect(Properties info) throws SQLException {
        connects.incrementAndGet();
        String password = info.getProperty("password");
        info.setProperty("password", "mutated-by-driver"); // real drivers mutate what they get
        SQLException failure = connectFailures.poll();
        if (failure != null) {
            throw failure;
        }
        if (requiredPassword != null && !requiredPassword.equals(password)) {
            throw new SQLException("password authentication failed for user \"" + info.getProperty("user") + "\"",
                    "28P01");
        }
        StubConnection c = new StubConnection(this, connections.size() + 1);
        connections.add(c);
        return c.proxy();
    }

    long open() {
        return connections.stream().filter(c -> !c.closed).count();
    }
}
