package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.ManualClockAccess;
import dev.loompool.stub.StubConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/**
 * Why a handle is pinned (issue 30), on the stub driver with the pool's manual clock: the bound
 * handles' facts (the oldest pin, the masked statement that started it, the bind site with leak
 * detection), the pinWarningThreshold's one warning per binding, and Flight Recorder's Pin event.
 */
class PinFactsTest extends StubSupport {

    private static final String SECRET_SET = "SET application_name = 'secret-token-123'";
    private static final String MASKED_SET = "SET application_name = ?";

    private final ManualClockAccess clock = new ManualClockAccess();

    private LoomPoolDataSource timed() throws SQLException {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(clock);
        ds.setMaxSize(2);
        return ds;
    }

    private static void run(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static HandleInfo only(LoomPoolDataSource ds) {
        List<HandleInfo> handles = ds.getBoundHandles();
        assertThat(handles).hasSize(1);
        return handles.get(0);
    }

    @Test
    void aSetIsShownMaskedAsTheStatementThatPinnedTheHandle() throws SQLException {
        LoomPoolDataSource ds = timed();
        try (Connection c = ds.getConnection()) {
            run(c, SECRET_SET);
            clock.advance(Duration.ofSeconds(4));
            HandleInfo h = only(ds);
            assertThat(h.pins()).containsExactly(PinReason.SESSION_STATE);
            assertThat(h.longestPin()).isEqualTo(PinReason.SESSION_STATE);
            assertThat(h.longestPinFor()).isEqualTo(Duration.ofSeconds(4));
            assertThat(h.pinStatement()).isEqualTo(MASKED_SET);
            assertThat(h.bindSite()).as("no stack is captured without leak detection").isNull();
            assertThat(h.toString()).doesNotContain("secret-token-123");
        }
    }

    @Test
    void theOldestPinThatOutlivesAStatementIsTheLongestAndCallsAreNamed() throws SQLException {
        LoomPoolDataSource ds = timed();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            run(c, "SELECT 1");
            clock.advance(Duration.ofSeconds(5));
            run(c, SECRET_SET);
            clock.advance(Duration.ofSeconds(1));
            HandleInfo h = only(ds);
            assertThat(h.pins()).contains(PinReason.TRANSACTION, PinReason.SESSION_STATE);
            assertThat(h.longestPin()).isEqualTo(PinReason.TRANSACTION);
            assertThat(h.longestPinFor()).isEqualTo(Duration.ofSeconds(6));
            assertThat(h.pinStatement()).isEqualTo("setAutoCommit(false)");
            c.rollback();
            c.setAutoCommit(true);
            assertThat(only(ds).longestPin()).as("the transaction ended: the SET holds").isEqualTo(PinReason.SESSION_STATE);
            assertThat(only(ds).pinStatement()).isEqualTo(MASKED_SET);
        }
        try (Connection c = ds.getConnection()) {
            c.unwrap(LoomConnection.class).pin();
            run(c, "SELECT 1");
            assertThat(only(ds).pinStatement()).isEqualTo("pin()");
        }
        try (Connection c = ds.getConnection()) {
            c.unwrap(StubConnection.class);
            assertThat(only(ds).longestPin()).isEqualTo(PinReason.EXPLICIT);
            assertThat(only(ds).pinStatement()).isEqualTo("unwrap(StubConnection)");
        }
    }

    @Test
    void anOpenStatementIsShownByItsSqlAndLeakDetectionAddsTheBindSite() throws SQLException {
        LoomPoolDataSource ds = timed();
        ds.setLeakDetectionThreshold(Duration.ofMinutes(10));
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT * FROM users WHERE email = 'bob@example.com'\nAND 1 = 1")) {
            clock.advance(Duration.ofSeconds(2));
            HandleInfo h = only(ds);
            assertThat(h.longestPin()).isEqualTo(PinReason.STATEMENT);
            assertThat(h.longestPinFor()).as("per-statement pins count from the bind").isEqualTo(Duration.ofSeconds(2));
            assertThat(h.pinStatement()).isEqualTo("SELECT * FROM users WHERE email = ?…");
            assertThat(h.bindSite()).as("the first frame outside loompool and the JDK")
                    .startsWith(PinFactsTest.class.getName() + ".anOpenStatementIsShownByItsSqlAndLeakDetectionAddsTheBindSite(PinFactsTest.java:");
        }
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 42");
            assertThat(only(ds).pinStatement()).as("a plain statement: its first SQL").isEqualTo("SELECT ?");
        }
    }

    @Test
    void aSessionPinPastTheThresholdIsLoggedOnceMaskedAndATransactionIsNot() throws Exception {
        LoomPoolDataSource ds = timed();
        ds.setPinWarningThreshold(Duration.ofSeconds(10));
        try (Connection set = ds.getConnection(); Connection tx = ds.getConnection()) {
            run(set, SECRET_SET);
            tx.setAutoCommit(false);
            run(tx, "INSERT INTO t VALUES (1)");
            String log = SecretLeaks.logOf(() -> {
                clock.advance(Duration.ofSeconds(11));
                ds.scanNow();
                ds.scanNow();
            });
            List<String> warnings = log.lines().filter(l -> l.contains("longer than pinWarningThreshold")).toList();
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0)).contains("WARN", "pool '" + ds.getPoolName() + "'", "SESSION_STATE",
                    "started by: " + MASKED_SET, "thread " + Thread.currentThread().getName(), "for 11000 ms");
            assertThat(log).doesNotContain("secret-token-123");
            String later = SecretLeaks.logOf(() -> {
                clock.advance(Duration.ofSeconds(60));
                ds.scanNow();
            });
            assertThat(later).as("once per binding").doesNotContain("pinWarningThreshold");
            tx.rollback();
        }
    }

    @Test
    void withoutAThresholdNothingWarns() throws Exception {
        LoomPoolDataSource ds = timed();
        try (Connection c = ds.getConnection()) {
            c.unwrap(LoomConnection.class).pin();
            run(c, SECRET_SET);
            String log = SecretLeaks.logOf(() -> {
                clock.advance(Duration.ofHours(1));
                ds.scanNow();
            });
            assertThat(log).doesNotContain("pinWarningThreshold");
        }
    }

    /** The Pin events {@code ds} commits while {@code block} runs, waited for until {@code expected} came. */
    private static List<RecordedEvent> pinEvents(LoomPoolDataSource ds, int expected, SecretLeaks.ThrowingRunnable block)
            throws Exception {
        List<RecordedEvent> events = new CopyOnWriteArrayList<>();
        try (RecordingStream stream = new RecordingStream()) {
            stream.enable("dev.loompool.Pin").withThreshold(Duration.ZERO);
            stream.onEvent("dev.loompool.Pin", e -> {
                if (ds.getPoolName().equals(e.getString("poolName"))) {
                    events.add(e);
                }
            });
            stream.startAsync();
            block.run();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (events.size() < expected && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(20_000_000);
            }
        }
        return events;
    }

    @Test
    void withLeakDetectionAPinEndedByTheHandlesCloseNamesTheBindSiteInItsEvent() throws Exception {
        LoomPoolDataSource ds = timed();
        ds.setLeakDetectionThreshold(Duration.ofMinutes(10));
        String site = PinFactsTest.class.getName() + "."; // the statement's first frame of this class: run(…) or the lambda
        List<RecordedEvent> events = pinEvents(ds, 2, () -> {
            try (Connection c = ds.getConnection()) {
                run(c, SECRET_SET); // session state: ends only with the handle
            }
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                run(c, "INSERT INTO t VALUES (1)"); // a transaction the close rolls back
            }
        });
        assertThat(events).extracting(e -> e.getString("reason")).containsExactlyInAnyOrder("SESSION_STATE", "TRANSACTION");
        assertThat(events).allSatisfy(e -> assertThat(e.getString("bindSite")).as("where the test bound it")
                .startsWith(site).contains("(PinFactsTest.java:"));
    }

    @Test
    void aSessionPinEndsInAFlightRecorderEventWithItsMaskedStatement() throws SQLException {
        LoomPoolDataSource ds = timed();
        List<RecordedEvent> events = new CopyOnWriteArrayList<>();
        try (RecordingStream stream = new RecordingStream()) {
            stream.enable("dev.loompool.Pin").withThreshold(Duration.ZERO);
            stream.onEvent("dev.loompool.Pin", e -> {
                if (ds.getPoolName().equals(e.getString("poolName"))) {
                    events.add(e);
                }
            });
            stream.startAsync();
            try (Connection c = ds.getConnection()) {
                run(c, SECRET_SET);
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (events.isEmpty() && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(20_000_000);
            }
        }
        assertThat(events).hasSize(1);
        RecordedEvent e = events.get(0);
        assertThat(e.getString("reason")).isEqualTo("SESSION_STATE");
        assertThat(e.getString("statement")).isEqualTo(MASKED_SET);
        assertThat(e.getString("bindSite")).isNull();
        assertThat(e.getDuration().isNegative()).isFalse();
    }
}
