package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.ManualClockAccess;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Why a handle is pinned (issue 30) on the real PostgreSQL: pgjdbc reads the transaction state
 * from the wire, so the pins and their starts are the server's, not the stub's. A SET is shown and
 * warned about masked; a transaction begun by SQL is named by its BEGIN and does not warn.
 */
class PostgresPinFactsTest {

    private final String table = "pins_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final ManualClockAccess clock = new ManualClockAccess();
    private LoomPoolDataSource ds;

    @AfterEach
    void cleanup() throws SQLException {
        if (ds != null) {
            ds.close();
        }
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    private LoomPoolDataSource pool() throws SQLException {
        ds = new LoomPoolDataSource();
        ds.setJdbcUrl(TestDatabase.POSTGRES.url());
        ds.setPoolName("pins-" + table);
        ds.setMinSize(0);
        ds.setMaxSize(2);
        ds.setClock(clock);
        ds.setLeakDetectionThreshold(Duration.ofHours(1)); // captures the bind site; never reached
        ds.setPinWarningThreshold(Duration.ofSeconds(30));
        try (Connection c = TestDatabase.POSTGRES.admin(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, email text)");
        }
        return ds;
    }

    private static void run(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private HandleInfo handleWith(PinReason longest) {
        List<HandleInfo> handles = ds.getBoundHandles().stream().filter(h -> h.longestPin() == longest).toList();
        assertThat(handles).as("bound handles pinned longest by %s: %s", longest, ds.getBoundHandles()).hasSize(1);
        return handles.get(0);
    }

    @Test
    void aSetIsShownAndWarnedMaskedOnceAndATransactionBegunBySqlIsNamedButNotWarned() throws Exception {
        pool();
        try (Connection set = ds.getConnection(); Connection tx = ds.getConnection()) {
            run(set, "SET application_name = 'secret-token-123'");
            run(tx, "BEGIN");
            run(tx, "INSERT INTO " + table + " VALUES (1, 'bob@example.com')");
            clock.advance(Duration.ofSeconds(5));

            HandleInfo session = handleWith(PinReason.SESSION_STATE);
            assertThat(session.pinStatement()).isEqualTo("SET application_name = ?");
            assertThat(session.longestPinFor()).isEqualTo(Duration.ofSeconds(5));
            assertThat(session.bindSite()).startsWith(PostgresPinFactsTest.class.getName() + ".");
            HandleInfo transaction = handleWith(PinReason.TRANSACTION);
            assertThat(transaction.pinStatement()).isEqualTo("BEGIN");
            assertThat(ds.getBoundHandles().toString()).doesNotContain("secret-token-123", "bob@example.com");

            String log = SecretLeaks.logOf(() -> {
                clock.advance(Duration.ofSeconds(30));
                ds.scanNow();
                ds.scanNow();
            });
            List<String> warnings = log.lines().filter(l -> l.contains("longer than pinWarningThreshold")).toList();
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0)).contains("WARN", "SESSION_STATE", "started by: SET application_name = ?",
                    "bound at: " + PostgresPinFactsTest.class.getName() + ".");
            assertThat(log).doesNotContain("secret-token-123");
            run(tx, "COMMIT");
        }
        try (Connection admin = TestDatabase.POSTGRES.admin(); Statement st = admin.createStatement();
                var rs = st.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            assertThat(rs.getInt(1)).as("the transaction committed as it was").isEqualTo(1);
        }
    }

    @Test
    void anExplicitPinPastTheThresholdWarnsWithItsCall() throws Exception {
        pool();
        try (Connection c = ds.getConnection()) {
            c.unwrap(org.postgresql.PGConnection.class);
            String log = SecretLeaks.logOf(() -> {
                clock.advance(Duration.ofSeconds(31));
                ds.scanNow();
            });
            assertThat(log.lines().filter(l -> l.contains("longer than pinWarningThreshold")).toList())
                    .singleElement().asString().contains("EXPLICIT", "started by: unwrap(PGConnection)");
        }
    }
}
