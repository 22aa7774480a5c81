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
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The catalog of functions and views is read off the connect path (issue 39): a pool started by
 * its first getConnection serves that caller before it knows the catalog, and until it does,
 * nothing proves a statement neutral (a view, a trigger or an operator it names may change the
 * session), so every statement keeps its connection as session state does. The first connection
 * that comes back is read on before it is reused; from then on statements are classified by the
 * catalog. An explicit start() reads it before it returns.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CatalogReadOffTheConnectPathTest {

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
