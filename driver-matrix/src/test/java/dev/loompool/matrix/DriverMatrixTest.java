package dev.loompool.matrix;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import dev.loompool.jdbc.internal.driver.WireState;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * Each execution of the driver matrix (driver-matrix/pom.xml) names a driver version in system
 * properties: that version is the one that runs, and the pool either reads the transaction state
 * from it or says once, at its first connection, that it falls back to pinning. The pin-semantics
 * and transaction-state suites of pool-core that run beside it then show that either way is safe.
 */
class DriverMatrixTest {

    /** E.g. "pgjdbc 42.2.29": the name, a space, the version. */
    private static final String DRIVER = System.getProperty("loompool.matrix.driver", "");
    private static final TestDatabase DATABASE = TestDatabase.valueOf(System.getProperty("loompool.matrix.database", "POSTGRES"));
    /** "read" (the pool reads the state from the driver) or "pinned" (it cannot, and says so). */
    private static final String STATE = System.getProperty("loompool.matrix.transaction-state", "");
    private static final String FALLBACK = "does not show the server's transaction state; the pool falls back to pinning";

    private static String version() {
        return DRIVER.substring(DRIVER.lastIndexOf(' ') + 1);
    }

    @Test
    void theDriverThatRunsIsTheVersionThisExecutionNames() throws SQLException {
        assertThat(DRIVER).as("system property loompool.matrix.driver (run through driver-matrix's executions)").contains(" ");
        try (Connection c = DriverManager.getConnection(DATABASE.url())) {
            assertThat(c.getMetaData().getDriverVersion()).as("%s from %s", c.getMetaData().getDriverName(),
                    c.getClass().getProtectionDomain().getCodeSource().getLocation()).contains(version());
        }
    }

    @Test
    void thePoolReadsTheTransactionStateOrSaysAtItsFirstConnectionThatItFallsBackToPinning() throws Exception {
        assertThat(STATE).isIn("read", "pinned");
        try (Connection c = DriverManager.getConnection(DATABASE.url())) {
            assertThat(WireState.of(c).readable()).as("the transaction state of %s is read", DRIVER)
                    .isEqualTo(STATE.equals("read"));
        }
        String log;
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                captured.write(b);
                original.write(b);
            }
        }, true, StandardCharsets.UTF_8));
        try (LoomPoolDataSource ds = new LoomPoolDataSource()) {
            ds.setJdbcUrl(DATABASE.url());
            ds.setPoolName("driver-matrix");
            ds.setMaxSize(2);
            for (int i = 0; i < 3; i++) {
                try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                    st.execute("SELECT 1");
                }
            }
        } finally {
            System.err.flush();
            System.setErr(original);
            log = captured.toString(StandardCharsets.UTF_8);
        }
        long lines = log.lines().filter(l -> l.contains(FALLBACK)).count();
        if (STATE.equals("read")) {
            assertThat(lines).as("no fallback announced for %s:%n%s", DRIVER, log).isZero();
        } else {
            assertThat(lines).as("the fallback announced once for %s:%n%s", DRIVER, log).isEqualTo(1);
            assertThat(log.lines().filter(l -> l.contains(FALLBACK)).findFirst().orElseThrow())
                    .contains("pool 'driver-matrix'").contains(version());
        }
    }
}
