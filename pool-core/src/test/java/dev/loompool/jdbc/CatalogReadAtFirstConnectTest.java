package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The catalog of functions and views is read by the pool's first connection before it is handed
 * out (in the round trip that reads its session, ConnectRoundTripsTest), whether the pool started
 * by its first getConnection or by start(): no statement is classified without it. A read deferred
 * to the first connection back (issue 39's first try) pinned every statement until then, and
 * handles kept open starved the pool.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CatalogReadAtFirstConnectTest {

    private LoomPoolDataSource ds;

    @AfterEach
    void close() {
        if (ds != null) {
            ds.close();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aColdPoolsFirstConnectionReadsTheCatalogBeforeItIsHandedOutSoNoStatementPinsForWantOfIt(TestDatabase db)
            throws Exception {
        ds = pool(db, "catalog-later-" + db.name().toLowerCase());
        try (Connection first = ds.getConnection()) {
            // a deferred read pinned every statement until a connection came back: open handles then starved the pool
            assertThat(pinsAfterSelectOne(first)).as("the first handle, the catalog read at connect").isEmpty();
        }
        try (Connection next = ds.getConnection()) {
            assertThat(pinsAfterSelectOne(next)).as("once the catalog is read, SELECT 1 lets its connection go").isEmpty();
        }
        assertThat(ds.getPool().stats().inUse()).isZero();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void anExplicitStartReadsTheCatalogBeforeItReturns(TestDatabase db) throws Exception {
        ds = pool(db, "catalog-at-start-" + db.name().toLowerCase());
        ds.start();
        try (Connection c = ds.getConnection()) {
            assertThat(pinsAfterSelectOne(c)).isEmpty();
        }
    }

    /**
     * The first connection's read waits at most a second for a lock. Behind another session's
     * open ALTER TABLE under a view it gives up (55P03), the transaction its text began is rolled
     * back, and the connection is handed out all the same: not refused, and not left in a failed
     * transaction where every statement would fail (25P02). Until a read succeeds (at the next
     * return, once the lock is gone) nothing is proved neutral: every statement pins.
     */
    @Test
    void aFirstConnectionWhoseCatalogReadMeetsALockIsHandedOutWorking() throws Exception {
        String table = "catalog_locked_" + ProcessHandle.current().pid();
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table + " CASCADE");
            st.execute("CREATE TABLE " + table + " (id int)");
            st.execute("CREATE VIEW " + table + "_v AS SELECT id FROM " + table);
            try (Connection migration = TestDatabase.POSTGRES.admin(); Statement m = migration.createStatement()) {
                migration.setAutoCommit(false);
                m.execute("ALTER TABLE " + table + " ADD COLUMN note text"); // ACCESS EXCLUSIVE until it ends
                ds = pool(TestDatabase.POSTGRES, "catalog-locked");
                try (Connection first = ds.getConnection()) {
                    try {
                        assertThat(pinsAfterSelectOne(first)).as("nothing known: even SELECT 1 pins")
                                .contains(PinReason.SESSION_STATE);
                    } finally {
                        migration.rollback(); // before the close, whose return reads the catalog again
                    }
                }
            } finally {
                st.execute("DROP TABLE IF EXISTS " + table + " CASCADE");
            }
        }
        try (Connection next = ds.getConnection()) {
            assertThat(pinsAfterSelectOne(next)).as("the lock gone, the first return read the catalog").isEmpty();
        }
    }

    private static LoomPoolDataSource pool(TestDatabase db, String name) {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(db.url());
        ds.setPoolName(name);
        ds.setMinSize(1);
        ds.setMaxSize(1);
        ds.setAcquireTimeout(Duration.ofSeconds(10));
        return ds;
    }

    /** The handle's pins once a SELECT 1 ran and its statement closed. */
    private static Set<PinReason> pinsAfterSelectOne(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1")) {
            assertThat(rs.next()).isTrue();
        }
        return c.unwrap(LoomConnection.class).pinReasons();
    }
}
