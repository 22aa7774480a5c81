package dev.loompool.jdbc.internal.physical;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Errors of a connect (DESIGN.md §4, "Errors"), as {@link ConnectFailures} shapes them: the caller
 * gets an exception naming the pool, of the driver's kind, with its SQLState and vendor code and
 * the driver's exception as its cause; a start that gives up says so; and what the pool adds to a
 * driver's exception (which may come back again and again) stays bounded.
 */
class ConnectFailuresTest extends StubPoolFixture {

    @Test
    void aRequestsFailedConnectReachesItsCallerNamingThePoolAsTheDriverSaidIt() throws Exception {
        JdbcPool pool = pool();
        SQLException driver = new SQLTransientConnectionException("the server is starting up", "57P03", 17);

        SQLException first = ConnectFailures.connectFailed(pool, driver);
        SQLException second = ConnectFailures.connectFailed(pool, driver);

        assertThat((Throwable) first).isInstanceOf(SQLTransientConnectionException.class)
                .hasMessage("pool '" + pool.name + "': could not open a connection (total=0, idle=0, inUse=0, "
                        + "pending=0, minSize=0, maxSize=4): the server is starting up")
                .hasCause(driver);
        assertThat(first.getCause()).isSameAs(driver);
        assertThat(first.getSQLState()).isEqualTo("57P03");
        assertThat(first.getErrorCode()).isEqualTo(17);
        assertThat((Throwable) second).as("each caller its own").isNotSameAs(first);
        assertThat(driver.getSuppressed()).as("nothing added to the driver's, which may come back").isEmpty();
        assertThat(driver.getMessage()).isEqualTo("the server is starting up");
    }

    @Test
    void aStartThatGivesUpNamesThePoolItsMinSizeAndTheUrlAndKeepsTheDriversSqlState() {
        db.failNextConnect(new SQLException("password authentication failed for user \"app\"", "28P01", 7));

        assertThatThrownBy(() -> pool(1, Duration.ZERO, Duration.ZERO, false)).isInstanceOf(SQLException.class)
                .hasMessage("pool 'physical-" + db.name() + "': could not open its minSize=1 connections to "
                        + db.url() + ": password authentication failed for user \"app\"")
                .satisfies(e -> {
                    SQLException s = (SQLException) e;
                    assertThat(s.getSQLState()).isEqualTo("28P01");
                    assertThat(s.getErrorCode()).isEqualTo(7);
                    assertThat(s.getCause()).isInstanceOf(SQLException.class)
                            .hasMessageContaining("password authentication failed");
                });
        assertThat(db.connects()).as("initializationFailTimeout=0: one attempt").isEqualTo(1);
    }

    @Test
    void aStartThatGivesUpOnADatabaseThatIsDownSaysSoWithTheDriversSqlState() {
        db.down();

        assertThatThrownBy(() -> pool(1, Duration.ZERO, Duration.ZERO, false)).isInstanceOf(SQLException.class)
                .hasMessageContaining("could not open its minSize=1 connections")
                .hasMessageContaining("refused")
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("08001"));
    }

    @Test
    void theSameInstanceOrOneAlreadyThereIsNotSuppressedAgain() {
        SQLException failure = new SQLException("first");
        SQLException other = new SQLException("second");

        ConnectFailures.suppress(failure, failure);
        ConnectFailures.suppress(failure, other);
        ConnectFailures.suppress(failure, other);

        assertThat(failure.getSuppressed()).containsExactly(other);
    }

    @Test
    void aFailureAlreadyHeldByTheOtherIsNotAddedBackACycleAcrossSharedInstances() {
        SQLException a = new SQLException("a");
        SQLException b = new SQLException("b");
        ConnectFailures.suppress(a, b);

        ConnectFailures.suppress(b, a);

        assertThat(b.getSuppressed()).as("b is already in a's list").isEmpty();
    }

    @Test
    void theSuppressedListStopsGrowingAtItsMaximum() {
        SQLException cached = new SQLException("a driver's cached failure");
        for (int i = 0; i < 10; i++) {
            ConnectFailures.suppress(cached, new SQLException("attempt " + i));
        }

        assertThat(cached.getSuppressed()).hasSize(ConnectFailures.MAX_SUPPRESSED);
        assertThat(cached.getSuppressed()[0]).hasMessage("attempt 0");
    }
}
