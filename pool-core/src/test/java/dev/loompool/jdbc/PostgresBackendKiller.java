package dev.loompool.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.locks.LockSupport;

/** Terminates a PostgreSQL backend as its administrator would, and waits until it is gone. */
final class PostgresBackendKiller {

    private PostgresBackendKiller() {
    }

    static void terminate(long pid) throws SQLException {
        try (Connection admin = TestDatabase.POSTGRES.admin(); java.sql.Statement st = admin.createStatement()) {
            st.execute("SELECT pg_terminate_backend(" + pid + ")");
            for (int i = 0; i < 500; i++) {
                try (java.sql.ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        return;
                    }
                }
                LockSupport.parkNanos(10_000_000);
            }
        }
        throw new AssertionError("backend " + pid + " did not go");
    }
}
