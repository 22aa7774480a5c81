package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.ManualClockAccess;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.text.MessageFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 (P7): the pool adds no round trip to a cycle. pgjdbc's own protocol trace counts the
 * messages sent to PostgreSQL per getConnection → prepared SELECT → close, through loompool and on
 * one driver connection held throughout: they must be the same. The pool's clock stands still, so
 * no connection is ever idle long enough to be validated at hand-out, however slow the machine.
 */
class PostgresWireParityTest {

    private static final int CYCLES = 50;

    @FunctionalInterface
    interface Cycle {
        void run() throws SQLException;
    }

    @Test
    void aCycleThroughThePoolSendsWhatTheDriverAloneSends() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        Map<String, Integer> alone;
        try (Connection raw = DriverManager.getConnection(url)) {
            alone = messages(() -> select(raw));
        }
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(url);
        ds.setMinSize(1);
        ds.setMaxSize(1);
        ds.setClock(new ManualClockAccess());
        Map<String, Integer> pooled;
        try (ds) {
            pooled = messages(() -> {
                try (Connection c = ds.getConnection()) {
                    select(c);
                }
            });
        }
        assertThat(pooled).as("messages per %d cycles through loompool, by kind", CYCLES).isEqualTo(alone);
        assertThat(alone).as("the trace saw the cycles").containsEntry("Execute", CYCLES);
    }

    private static void select(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1"); ResultSet rs = ps.executeQuery()) {
            rs.next();
        }
    }

    /** The front-end messages of {@value #CYCLES} cycles, after 10 to warm up (past the prepare threshold), by kind. */
    private static Map<String, Integer> messages(Cycle cycle) throws SQLException {
        List<String> sent = new CopyOnWriteArrayList<>();
        Logger driver = Logger.getLogger("org.postgresql");
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                String m = r.getParameters() == null ? r.getMessage() : MessageFormat.format(r.getMessage(), r.getParameters());
                if (m != null && m.contains("FE=>")) {
                    sent.add(m.trim().substring("FE=> ".length()).replaceAll("\\(.*", ""));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Level before = driver.getLevel();
        driver.setLevel(Level.FINEST);
        driver.addHandler(capture);
        try {
            for (int i = 0; i < 10; i++) {
                cycle.run();
            }
            sent.clear();
            for (int i = 0; i < CYCLES; i++) {
                cycle.run();
            }
        } finally {
            driver.removeHandler(capture);
            driver.setLevel(before);
        }
        Map<String, Integer> byKind = new TreeMap<>();
        sent.forEach(m -> byKind.merge(m, 1, Integer::sum));
        return byKind;
    }
}
