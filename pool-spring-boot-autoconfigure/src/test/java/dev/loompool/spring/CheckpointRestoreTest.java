package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.CircuitBreakerState;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.jdbc.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * Checkpoint/restore (CRaC) on the real PostgreSQL, driven the way Spring drives it: the lifecycle
 * is stopped before the checkpoint and started after the restore. Borrower A holds a transaction
 * when the checkpoint begins: the checkpoint waits for it, A's commit lands, no backend of the pool
 * survives the checkpoint, and after the restore B reads A's row through the same bean.
 */
class CheckpointRestoreTest {

    private final String app = "loompool-crac-" + UUID.randomUUID().toString().substring(0, 8);
    private static String url() {
        return TestDatabase.POSTGRES.url(); // skipped without PostgreSQL, failed under CI
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class,
                    DataSourceAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + url(), "loompool.min-size=2",
                    "loompool.data-source-properties.ApplicationName=" + app);

    @BeforeAll
    static void postgres() throws SQLException {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS loompool_crac (note text)");
        }
    }

    @Test
    void theCheckpointWaitsForWorkInUseClosesEveryBackendAndTheRestoreReopens() throws Exception {
        runner.run(context -> {
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            CheckpointRestore lifecycle = context.getBean(CheckpointRestore.class);
            assertThat(backends()).isEqualTo(2);
            String note = UUID.randomUUID().toString();

            Connection a = ds.getConnection();
            a.setAutoCommit(false);
            try (Statement s = a.createStatement()) {
                s.executeUpdate("INSERT INTO loompool_crac VALUES ('" + note + "')");
            }
            CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(lifecycle::stop);
            while (ds.getPool().state() != CircuitBreakerState.INACTIVE) {
                Thread.onSpinWait();
            }
            assertThatThrownBy(() -> {
                try (Connection b = ds.getConnection(); Statement s = b.createStatement()) {
                    s.executeQuery("SELECT 1");
                }
            }).as("nothing new is handed out").isInstanceOf(SQLTransientConnectionException.class);
            assertThat(checkpoint).as("still waiting for A's transaction").isNotDone();
            a.commit();
            a.close();
            checkpoint.get(30, TimeUnit.SECONDS);
            assertThat(ds.getPool().stats().total()).isZero();
            assertThat(backendsOnceClosed()).as("no backend of the pool survives the checkpoint").isZero();
            assertThat(lifecycle.isRunning()).isFalse();

            lifecycle.start();
            assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.ACTIVE);
            try (Connection b = ds.getConnection(); Statement s = b.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM loompool_crac WHERE note = '" + note + "'")) {
                rs.next();
                assertThat(rs.getInt(1)).as("A's commit landed").isEqualTo(1);
            }
            assertThat(ds.isRunning()).as("the same pool, no restart").isTrue();
        });
    }

    @Test
    void aChildContextClosingIsNotTheApplicationClosing() {
        runner.run(context -> {
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            try (AnnotationConfigApplicationContext child = new AnnotationConfigApplicationContext()) {
                child.setParent(context.getSourceApplicationContext());
                child.refresh();
            } // its ContextClosedEvent reaches the parent's listeners too
            context.getBean(CheckpointRestore.class).stop();
            assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
            assertThat(ds.getPool().stats().total()).isZero();
            assertThat(backendsOnceClosed()).isZero();
        });
    }

    @Test
    void withZeroTimeoutsTheCheckpointStillWaitsForTheIdleCheckThatClosesTheConnections() {
        runner.withPropertyValues("loompool.acquire-timeout=0", "loompool.validation-timeout=0", "loompool.min-size=5")
                .run(context -> {
                    LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
                    CheckpointRestore lifecycle = context.getBean(CheckpointRestore.class);
                    for (int cycle = 0; cycle < 5; cycle++) {
                        lifecycle.stop();
                        assertThat(ds.getPool().stats().total()).as("cycle " + cycle).isZero();
                        assertThat(backendsOnceClosed()).as("cycle " + cycle).isZero();
                        lifecycle.start();
                    }
                });
    }

    @Test
    void aPoolHeldInactiveByAnOperatorStaysSoAfterTheRestore() {
        runner.run(context -> {
            LoomPoolDataSource ds = context.getBean(LoomPoolDataSource.class);
            CheckpointRestore lifecycle = context.getBean(CheckpointRestore.class);
            ds.getPool().deactivate();
            lifecycle.stop();
            lifecycle.start();
            assertThat(ds.getPool().state()).isEqualTo(CircuitBreakerState.INACTIVE);
        });
    }

    @Test
    void withoutCracOnTheClassPathThereIsNoCheckpointSupport() {
        runner.withClassLoader(new FilteredClassLoader("org.crac"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(CheckpointRestore.class));
    }

    /**
     * The pool's backends once the server has seen their connections close: a backend leaves
     * pg_stat_activity a moment after its client closed the socket, longer on a loaded machine.
     */
    private int backendsOnceClosed() throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        int n;
        while ((n = backends()) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return n;
    }

    private int backends() throws SQLException {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + app + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
