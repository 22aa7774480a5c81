package dev.loompool.jdbc;

import static dev.loompool.jdbc.SecretLeaks.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.ManualClockAccess;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Secrets masking at a start that fails (DESIGN.md §4, Start and Credentials): while the database
 * refuses, the password a driver echoes, or a literal of the pool's own init SQL that the server's
 * message quotes, reaches neither the retry and startedShort WARN lines, nor the health detail
 * ({@code getInitialConnectError()}), nor a request's failed connect.
 */
class FailedStartShowsNoSecretTest extends StubSupport {

    /** The real servers' pools, closed after each test; the manual clock. */
    @RegisterExtension
    final SecretMaskingPools pools = new SecretMaskingPools();

    /** A driver failure that echoes the password it was given, as a careless driver does. */
    private static SQLException echoing(String password) {
        return new java.sql.SQLNonTransientConnectionException("FATAL: login refused for password=" + password
                + " (url jdbc:x://app:" + password + "@db/x)", "28P01");
    }

    private static String startInBackground(LoomPoolDataSource ds, ManualClockAccess clock, Throwable[] failure)
            throws Exception {
        return SecretLeaks.logOf(() -> {
            Thread t = new Thread(() -> {
                try {
                    ds.start();
                } catch (Throwable e) {
                    failure[0] = e;
                }
            }, "atkmask-start");
            t.setDaemon(true);
            t.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (t.isAlive() && System.nanoTime() - deadline < 0) {
                clock.advance(Duration.ofMillis(500));
                LockSupport.unpark(t);
                LockSupport.parkNanos(2_000_000);
            }
            assertThat(t.isAlive()).as("the start ended").isFalse();
        });
    }

    @Test
    void aPositiveInitializationFailTimeoutNeverShowsThePasswordTheDriverEchoes() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(pools.clock);
        ds.setMinSize(1);
        ds.setPassword(SECRET);
        ds.setInitializationFailTimeout(Duration.ofSeconds(20));
        for (int i = 0; i < 200; i++) {
            db.failNextConnect(echoing(SECRET));
        }
        Throwable[] failure = new Throwable[1];
        String log = startInBackground(ds, pools.clock, failure);
        assertThat(log).as("retry lines were written").contains("retrying");
        assertThat(failure[0]).as("the start failed").isNotNull();
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(log).as("retry WARN lines").doesNotContain(SECRET);
        soft.assertThat(SecretLeaks.everything(failure[0])).as("the start's failure").doesNotContain(SECRET)
                .contains("within initializationFailTimeout");
        soft.assertThat(String.valueOf(ds.getInitialConnectError())).as("getInitialConnectError()").doesNotContain(SECRET);
        soft.assertAll();
    }

    @Test
    void aNegativeInitializationFailTimeoutShowsThePasswordNowhere() throws Exception {
        LoomPoolDataSource ds = dataSource();
        ds.setClock(pools.clock);
        ds.setMinSize(1);
        AtomicInteger rotation = new AtomicInteger();
        ds.setCredentialsSupplier(() -> new Credentials("app", SECRET + "-" + rotation.incrementAndGet()));
        for (int i = 0; i < 5; i++) {
            db.failNextConnect(echoing(SECRET + "-" + (i + 1)));
        }
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        String startLog = SecretLeaks.logOf(ds::start);
        assertThat(startLog).contains("started without connections");
        String initial = ds.getInitialConnectError();
        assertThat(initial).as("the health detail's text").isNotNull();
        Throwable request = null;
        try (Connection c = ds.getConnection()) {
            // a connect that succeeded: the queue of failures ran out
        } catch (SQLException e) {
            request = e;
        }
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(startLog).as("startedShort WARN").doesNotContain(SECRET);
        soft.assertThat(initial).as("getInitialConnectError()").doesNotContain(SECRET);
        if (request != null) {
            soft.assertThat(SecretLeaks.everything(request)).as("a request's failed connect").doesNotContain(SECRET)
                    .contains("pool '" + ds.getPoolName() + "'");
        }
        soft.assertAll();
    }

    /**
     * The server's message quotes a literal of the pool's own init SQL ({@code invalid input syntax for
     * type integer: "S3cretTok9"}): the caller may see it (its own SQL), a log and the health detail should not.
     */
    @Test
    void postgresAnInitSqlErrorThatQuotesItsLiteralIsNotLoggedWhileRetrying() throws Exception {
        LoomPoolDataSource ds = initSqlFails();
        ds.setInitializationFailTimeout(Duration.ofMinutes(10));
        Throwable[] failure = new Throwable[1];
        String log = startInBackground(ds, pools.clock, failure);
        assertThat(failure[0]).as("the start failed").isNotNull();
        assertThat(log).as("retry lines were written").contains("retrying");
        System.out.println("[atkmask] init SQL start failure (to the caller): " + failure[0]);
        System.out.println("[atkmask] init SQL retry log: " + log);
        assertThat(log).as("the retry WARN lines").doesNotContain(SECRET);
    }

    @Test
    void postgresAnInitSqlErrorThatQuotesItsLiteralIsNotLoggedNorInTheHealthDetail() throws Exception {
        LoomPoolDataSource ds = initSqlFails();
        ds.setInitializationFailTimeout(Duration.ofMillis(-1));
        String log = SecretLeaks.logOf(ds::start);
        assertThat(log).contains("started without connections");
        System.out.println("[atkmask] init SQL startedShort log: " + log);
        System.out.println("[atkmask] init SQL getInitialConnectError: " + ds.getInitialConnectError());
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(log).as("the startedShort WARN").doesNotContain(SECRET);
        soft.assertThat(ds.getInitialConnectError()).as("getInitialConnectError() (health lastConnectError)")
                .isNotNull().doesNotContain(SECRET);
        soft.assertAll();
    }

    private LoomPoolDataSource initSqlFails() {
        LoomPoolDataSource ds = pools.realPool(TestDatabase.POSTGRES);
        ds.setMinSize(1);
        ds.setConnectionInitSql("SELECT set_config('app.atkmask_token', 'S3cretTok9', false)::int");
        return ds;
    }
}
