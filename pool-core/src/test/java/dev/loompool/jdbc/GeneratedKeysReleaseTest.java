package dev.loompool.jdbc;

import static dev.loompool.jdbc.PlainQueries.*;
import static dev.loompool.jdbc.BorrowerScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The write path on the real servers (DESIGN.md §4, "Per-statement values"): an INSERT whose
 * generated key the caller takes from the statement itself (the keys asked for, {@code RETURNING})
 * lets its connection go when the statement closes; an INSERT into a table that generates no key
 * leaves no value; an INSERT without its keys into a table with a sequence still keeps the
 * connection for the handle's next statement, so that {@code INSERT; SELECT lastval()} (MyBatis'
 * {@code @SelectKey(order = AFTER)}) reads the handle's own id under any load. In the form
 * "borrower A did this; what does B get, and what did A commit?".
 */
class GeneratedKeysReleaseTest extends OnRealDatabases {

    /** One way of asking for the key of an INSERT into {@code table}; returns the key. */
    interface KeyedInsert {
        long insert(Connection c, String table, int v) throws SQLException;
    }

    enum Keys {
        PREPARED_RETURN_GENERATED_KEYS((c, t, v) -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + " (v) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
                ps.setInt(1, v);
                ps.executeUpdate();
                return key(ps.getGeneratedKeys());
            }
        }),
        PREPARED_COLUMN_NAMES((c, t, v) -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + " (v) VALUES (?)", new String[] {"id"})) {
                ps.setInt(1, v);
                ps.executeUpdate();
                return key(ps.getGeneratedKeys());
            }
        }),
        STATEMENT_RETURN_GENERATED_KEYS((c, t, v) -> {
            try (Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO " + t + " (v) VALUES (" + v + ")", Statement.RETURN_GENERATED_KEYS);
                return key(st.getGeneratedKeys());
            }
        }),
        RETURNING((c, t, v) -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + " (v) VALUES (?) RETURNING id")) {
                ps.setInt(1, v);
                return key(ps.executeQuery());
            }
        });

        final KeyedInsert how;

        Keys(KeyedInsert how) {
            this.how = how;
        }
    }

    private static long key(ResultSet rs) throws SQLException {
        try (rs) {
            assertThat(rs.next()).as("a generated key").isTrue();
            return rs.getLong(1);
        }
    }

    private static boolean bound(Connection c) throws SQLException {
        return c.unwrap(LoomConnection.class).isBound();
    }

    private void pgSerialTable() throws SQLException {
        pgAdmin("CREATE TABLE " + table + " (id bigserial PRIMARY KEY, v int)");
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
    }

    private LoomPoolDataSource pgOne() {
        LoomPoolDataSource ds = pg(1);
        ds.setAcquireTimeout(Duration.ofSeconds(2));
        return ds;
    }

    @ParameterizedTest
    @EnumSource(Keys.class)
    void anInsertThatHandsItsKeyBackLetsTheConnectionGoAndNobodyReadsItsValue(Keys keys) throws Exception {
        pgSerialTable();
        LoomPoolDataSource ds = pgOne();
        try (Connection a = ds.getConnection()) {
            long id = keys.how.insert(a, table, 1);
            assertThat(bound(a)).as("A's connection went back when the statement closed").isFalse();
            try (Connection b = ds.getConnection()) { // the pool's only connection: the old code kept it for A
                assertThatThrownBy(() -> num(b, "SELECT lastval()")).as("B reads no value of A's")
                        .isInstanceOf(SQLException.class).hasMessageContaining("getGeneratedKeys()");
                run(b, "INSERT INTO " + table + " (v) VALUES (2)");
                assertThat(num(b, "SELECT lastval()")).as("B's own").isEqualTo(id + 1);
            }
            assertThatThrownBy(() -> num(a, "SELECT lastval()")).as("A's value is gone with its binding: refused, not wrong")
                    .isInstanceOf(SQLException.class).hasMessageContaining("refused");
            assertThat(num(a, "SELECT v FROM " + table + " WHERE id = " + id)).as("A's key names A's row").isEqualTo(1);
        }
        assertThat(pgIds()).isEqualTo("1,2");
    }

    /**
     * Whether the INSERT set the session's value is not known (an explicit id, no row): after a key
     * handed back, the session's value is not read even on the same binding; the key is the answer.
     */
    @Test
    void aKeyHandedBackIsNotReadFromTheSessionAfterwardsEvenOnTheSameBinding() throws SQLException {
        pgSerialTable();
        LoomPoolDataSource ds = pgOne();
        try (Connection a = ds.getConnection(); Statement held = a.createStatement()) { // an open statement binds
            Keys.PREPARED_RETURN_GENERATED_KEYS.how.insert(a, table, 1);
            assertThatThrownBy(() -> num(a, "SELECT lastval()")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("getGeneratedKeys()");
        }
    }

    @Test
    void anInsertWithoutItsKeysStillKeepsTheConnectionForTheNextStatement() throws SQLException {
        pgSerialTable();
        LoomPoolDataSource ds = pgOne();
        try (Connection a = ds.getConnection()) {
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            assertThat(bound(a)).as("kept for lastval()").isTrue();
            assertThat(a.unwrap(LoomConnection.class).pinReasons()).contains(PinReason.STATEMENT_VALUE);
            assertThat(num(a, "SELECT lastval()")).isEqualTo(1);
            assertThat(bound(a)).isFalse();
        }
    }

    @Test
    void anInsertIntoATableWithNoSequenceLeavesNoValueAndLetsGo() throws Exception {
        pgAdmin("CREATE TABLE " + table + " (id uuid DEFAULT gen_random_uuid() PRIMARY KEY, v int, at timestamptz DEFAULT now())");
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
        LoomPoolDataSource ds = pgOne();
        try (Connection a = ds.getConnection()) {
            // the catalog is read at the pool's start; until it is known, the INSERT keeps its value (cautious)
            eventually("the catalog says the table generates no key", () -> {
                try {
                    run(a, "INSERT INTO " + table + " (v) VALUES (1)");
                    return !bound(a);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (Connection b = ds.getConnection()) {
                run(b, "INSERT INTO " + table + " (v) VALUES (2)");
            }
        }
        assertThat(pgRows()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aTriggerOrAnIdentityColumnMakesAnInsertKeepItsValue() throws SQLException {
        pgAdmin("CREATE TABLE " + table + " (id bigint GENERATED ALWAYS AS IDENTITY, v int)");
        pgAdmin("CREATE TABLE " + table + "_t (v int)");
        pgAdmin("CREATE FUNCTION " + table + "_f() RETURNS trigger LANGUAGE plpgsql AS "
                + "'BEGIN PERFORM nextval(''" + table + "_id_seq''); RETURN NEW; END'");
        pgAdmin("CREATE TRIGGER " + table + "_g BEFORE INSERT ON " + table + "_t FOR EACH ROW EXECUTE FUNCTION " + table + "_f()");
        pgCleanup.add("DROP TABLE IF EXISTS " + table + "_t");
        pgCleanup.add("DROP FUNCTION IF EXISTS " + table + "_f()");
        pgCleanup.add("DROP TABLE IF EXISTS " + table);
        LoomPoolDataSource ds = pgOne();
        try (Connection a = ds.getConnection()) {
            run(a, "SELECT 1"); // the pool is started and its catalog read
            run(a, "INSERT INTO " + table + " (v) VALUES (1)");
            assertThat(num(a, "SELECT lastval()")).as("the identity's value").isEqualTo(1);
            run(a, "INSERT INTO " + table + "_t (v) VALUES (1)");
            assertThat(num(a, "SELECT lastval()")).as("the trigger's nextval").isEqualTo(2);
        }
    }

    /**
     * MyBatis' {@code @SelectKey(order = AFTER, statement = "SELECT lastval()")}: INSERT, then the
     * key read, on 100 virtual threads over 4 connections, while other requests insert with their
     * keys asked for (those let their connections go between statements). Every id read is the
     * thread's own row's.
     */
    @Test
    void selectKeyAfterReadsEachThreadsOwnIdUnderAHundredVirtualThreads() throws Exception {
        pgSerialTable();
        LoomPoolDataSource ds = pg(4);
        ds.setAcquireTimeout(Duration.ofSeconds(30));
        assertThat(hundredThreads(ds, "SELECT lastval()")).isEmpty();
        assertThat(pgRows()).isEqualTo(100L * 2 * ROUNDS_EACH);
    }

    private static final int ROUNDS_EACH = 5;

    private Queue<String> hundredThreads(LoomPoolDataSource ds, String readKey) throws Exception {
        Queue<String> wrong = new ConcurrentLinkedQueue<>();
        List<Future<?>> all = new ArrayList<>();
        ExecutorService vt = Executors.newCachedThreadPool(virtualThreads());
        try {
            for (int t = 0; t < 100; t++) {
                int thread = t;
                all.add(vt.submit(() -> {
                    for (int r = 0; r < ROUNDS_EACH; r++) {
                        int v = thread * 1000 + r;
                        try (Connection c = ds.getConnection()) {
                            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (v) VALUES (?)")) {
                                ps.setInt(1, v);
                                ps.executeUpdate();
                            }
                            long id = num(c, readKey);
                            long keyed = Keys.PREPARED_RETURN_GENERATED_KEYS.how.insert(c, table, -v - 1);
                            Thread.sleep(1); // the keyed insert's connection goes back meanwhile
                            long mine = num(c, "SELECT v FROM " + table + " WHERE id = " + id);
                            long keyedV = num(c, "SELECT v FROM " + table + " WHERE id = " + keyed);
                            if (mine != v || keyedV != -v - 1) {
                                wrong.add(readKey + " gave the row of " + mine + " for " + v + "; the key " + keyed
                                        + " the row of " + keyedV);
                            }
                        } catch (Exception e) {
                            wrong.add(e.toString());
                            return null;
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            vt.shutdownNow();
        }
        return wrong;
    }

    /** Virtual threads where the JDK has them (called by reflection: these sources compile for Java 17), else platform threads. */
    private static ThreadFactory virtualThreads() {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException e) {
            return Executors.defaultThreadFactory();
        }
    }

    @ParameterizedTest
    @EnumSource(Connector.class)
    void onMariaDbAKeyedInsertLetsGoAndLastInsertIdAfterAPlainOneIsTheThreadsOwn(Connector connector) throws Exception {
        mariaTable();
        LoomPoolDataSource one = maria(connector, 1, null);
        one.setAcquireTimeout(Duration.ofSeconds(2));
        try (Connection a = one.getConnection()) {
            long id = Keys.PREPARED_RETURN_GENERATED_KEYS.how.insert(a, table, 1);
            assertThat(bound(a)).as("A's connection went back when the statement closed").isFalse();
            try (Connection b = one.getConnection()) {
                assertThatThrownBy(() -> num(b, "SELECT LAST_INSERT_ID()")).isInstanceOf(SQLException.class)
                        .hasMessageContaining("getGeneratedKeys()");
            }
            assertThat(idWithV(1)).isEqualTo(id);
        }
        LoomPoolDataSource ds = maria(connector, 4, null);
        ds.setAcquireTimeout(Duration.ofSeconds(30));
        assertThat(hundredThreads(ds, "SELECT LAST_INSERT_ID()")).isEmpty();
        assertThat(mariaRows()).isEqualTo(1 + 100L * 2 * ROUNDS_EACH);
    }
}
