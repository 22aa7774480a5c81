package dev.loompool.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.FlightEvents;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;

/**
 * {@code dev.loompool.Reset} on a real PostgreSQL session (issue 30): a borrower's session state
 * is undone by DISCARD ALL and the driver's settings put back; the event says so. Skipped without
 * the database, except under CI=true.
 */
class PostgresFlightRecorderTest {

    @Test
    void aSessionResetOnPostgresIsRecordedAsDiscardAll() throws Exception {
        String url = TestDatabase.POSTGRES.url();
        try (FlightEvents jfr = new FlightEvents(JdbcFlightRecorderEventsTest.RESET);
                LoomPoolDataSource ds = new LoomPoolDataSource()) {
            ds.setJdbcUrl(url);
            ds.setPoolName("jfr-pg-" + System.nanoTime());
            ds.setMinSize(0);
            ds.setMaxSize(1);
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("SET application_name = 'jfr-reset'"); // session state: pinned, then reset
            }
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                c.setAutoCommit(false);
                st.execute("SELECT 1");
            } // a transaction: rolled back
            List<RecordedEvent> resets = jfr.await(JdbcFlightRecorderEventsTest.RESET, ds.getPoolName(), 2);
            assertThat(resets).extracting(e -> e.getString("outcome")).containsExactly("OK", "OK");
            assertThat(resets.get(0).getString("ran")).startsWith("DISCARD ALL");
            assertThat(resets.get(1).getString("ran")).isEqualTo("rollback; settings: auto_commit");
            assertThat(resets).allMatch(e -> e.getDuration().toNanos() > 0, "took some time on the wire");
        }
    }
}
