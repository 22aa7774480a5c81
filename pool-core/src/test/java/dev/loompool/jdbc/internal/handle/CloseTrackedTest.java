package dev.loompool.jdbc.internal.handle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.loompool.jdbc.LoomConnection;
import dev.loompool.jdbc.LoomPoolDataSource;
import dev.loompool.stub.StubDriver;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A close on another thread closes the handle's statements while the handle's own thread may be
 * making one (the statement then finds its binding ended and closes itself). The list the closer
 * walks may change under it: the close must still finish and give the connection back, whatever
 * the walk meets. Forced here by a tracked object whose close tracks another, as the owner's
 * prepare would at that moment.
 */
class CloseTrackedTest {

    @Test
    void aStatementTrackedWhileTheHandleClosesItsStatementsNeitherFailsTheCloseNorKeepsTheConnection()
            throws Exception {
        LoomPoolDataSource ds = new LoomPoolDataSource();
        ds.setJdbcUrl(StubDriver.database("close-tracked").url());
        ds.setPoolName("close-tracked");
        ds.setMinSize(0);
        ds.setMaxSize(1);
        try {
            Connection c = ds.getConnection();
            Statement one = c.createStatement();
            Statement two = c.createStatement();
            LogicalConnection h = (LogicalConnection) c.unwrap(LoomConnection.class);
            AtomicBoolean lateOneClosed = new AtomicBoolean();
            Tracked late = () -> lateOneClosed.set(true);
            Pins.track(h, () -> { // its close tracks two more, as a prepare on the owner's thread would
                Pins.track(h, late, "SELECT 2");
                Pins.track(h, late, "SELECT 3"); // the second goes into the list being walked
            }, "SELECT 1");

            assertThatCode(c::close).doesNotThrowAnyException();

            assertThat(ds.getPool().stats().inUse()).as("the connection went back").isZero();
            assertThat(one.isClosed()).isTrue();
            assertThat(two.isClosed()).isTrue();
            try (Connection next = ds.getConnection()) {
                assertThat(next.isValid(1)).as("the pool's only connection serves the next borrower").isTrue();
            }
        } finally {
            ds.close();
        }
    }
}
