package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Borrowers on the real servers with the server side of their sessions in reach: a pool and a
 * table of either database, a statement that sleeps, the session's id on the server, killing it and
 * seeing it gone; and borrower threads started by name.
 */
final class ServerSessions {

    private ServerSessions() {
    }


    static String sleep(TestDatabase db, double seconds, String marker) {
        return (db == TestDatabase.POSTGRES ? "SELECT pg_sleep(" : "SELECT SLEEP(") + seconds + ") AS s_" + marker;
    }

    static long backend(TestDatabase db, Connection c) throws SQLException {
        return db == TestDatabase.POSTGRES ? pgPidUnpinned(c) : myIdUnpinned(c);
    }

    static void kill(TestDatabase db, long id) throws SQLException {
        try (Connection admin = db.admin()) {
            run(admin, db == TestDatabase.POSTGRES ? "SELECT pg_terminate_backend(" + id + ")" : "KILL " + id);
        }
    }

    static boolean sessionGone(TestDatabase db, long id) {
        String sql = db == TestDatabase.POSTGRES ? "SELECT count(*) FROM pg_stat_activity WHERE pid = " + id
                : "SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = " + id;
        try (Connection c = db.admin()) {
            return num(c, sql) == 0;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }




    interface Body {
        void run() throws Exception;
    }

    static Thread start(String name, ThreadFactory factory, Body body, AtomicReference<Throwable> failure) {
        Thread t = factory.newThread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.setName(name);
        t.start();
        return t;
    }

    static ThreadFactory platform() {
        return Thread::new;
    }
}
