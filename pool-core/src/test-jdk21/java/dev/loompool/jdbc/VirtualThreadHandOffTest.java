package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 37, on virtual threads: a handle obtained on one thread and used by virtual threads it
 * forks, the way structured-concurrency subtasks are (a virtual-thread-per-task executor is what
 * a {@code StructuredTaskScope} forks onto; the scope itself is a preview API up to JDK 25). Once
 * the subtasks are done and their statements closed, the connection goes back: B, on a pool of
 * one, gets it.
 */
class VirtualThreadHandOffTest extends OnRealDatabases {

    private LoomPoolDataSource poolOfOne(TestDatabase db) {
        LoomPoolDataSource ds = pool(db, 1, null, null);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }

    private static void letGo(LoomPoolDataSource ds, Connection a) throws SQLException {
        LoomConnection h = a.unwrap(LoomConnection.class);
        assertThat(h.pinReasons()).isEmpty();
        assertThat(h.isBound()).as("A's handle let its connection go").isFalse();
        try (Connection b = ds.getConnection()) {
            assertThat(num(b, "SELECT 7")).isEqualTo(7);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStatementRunOnAForkedVirtualThreadThenClosedByTheCallerLetsTheConnectionGo(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = poolOfOne(db);
        try (Connection a = ds.getConnection()) {
            Statement st = a.createStatement();
            Thread.ofVirtual().start(() -> {
                try (ResultSet rs = st.executeQuery("SELECT 5")) {
                    rs.next();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }).join();
            st.close();
            letGo(ds, a);
        }
    }

    /** Three subtasks share the caller's handle, each with a statement of its own, as forked subtasks do. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void subtasksForkedOntoVirtualThreadsShareTheHandleAndLetTheConnectionGoWhenDone(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = poolOfOne(db);
        try (Connection a = ds.getConnection()) {
            List<Future<Long>> results = new ArrayList<>();
            try (ExecutorService scope = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 1; i <= 3; i++) {
                    int n = i;
                    results.add(scope.submit(() -> {
                        try (PreparedStatement ps = a.prepareStatement("SELECT " + n); ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            return rs.getLong(1);
                        }
                    }));
                }
            }
            long sum = 0;
            for (Future<Long> f : results) {
                sum += f.get(30, TimeUnit.SECONDS);
            }
            assertThat(sum).isEqualTo(6);
            letGo(ds, a);
        }
    }

    /** The subtask prepares, the caller closes: the statement outlives its virtual thread. */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStatementMadeOnAVirtualThreadAndClosedByTheCallerLetsTheConnectionGo(TestDatabase db) throws Exception {
        LoomPoolDataSource ds = poolOfOne(db);
        try (Connection a = ds.getConnection()) {
            PreparedStatement[] made = new PreparedStatement[1];
            Thread.ofVirtual().start(() -> {
                try {
                    made[0] = a.prepareStatement("SELECT 1");
                    made[0].executeQuery().close();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }).join();
            made[0].close();
            letGo(ds, a);
        }
    }
}
