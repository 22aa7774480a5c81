package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.Settings;
import dev.loompool.jdbc.internal.driver.WireState;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A physical connection's state only moves towards unfit, but for the LOBs a handle gives up. */
class ConnectionStateTest {

    private static PhysicalConnection connection() {
        return new PhysicalConnection(null, WireState.UNREADABLE, new Settings(), 0, Long.MAX_VALUE);
    }

    @Test
    void aBrokenConnectionStaysBrokenWhateverComesAfter() {
        PhysicalConnection p = connection();
        p.markBroken();
        p.markEvicted();
        p.markExposed();
        p.markLendingDriverObjects();
        p.endLendingDriverObjects();
        assertThat(p.state()).isEqualTo(ConnectionState.BROKEN);
    }

    @Test
    void anExposedConnectionIsNeverMadeHealthyAgain() {
        PhysicalConnection p = connection();
        p.markLendingDriverObjects();
        p.markExposed();
        p.endLendingDriverObjects();
        assertThat(p.state()).isEqualTo(ConnectionState.EXPOSED);
        assertThat(p.state().lent()).isTrue();
    }

    @Test
    void lentLobsEndWithTheirHandle() {
        PhysicalConnection p = connection();
        p.markLendingDriverObjects();
        assertThat(p.state().lent()).isTrue();
        p.endLendingDriverObjects();
        assertThat(p.state()).isEqualTo(ConnectionState.HEALTHY);
        assertThat(p.state().lent()).isFalse();
    }

    @Test
    void exposureOutranksEvictionAndBreakageOutranksBoth() {
        PhysicalConnection p = connection();
        p.markEvicted();
        p.markExposed();
        assertThat(p.state()).as("still never reclaimed while the application holds it").isEqualTo(ConnectionState.EXPOSED);
        p.markEvicted();
        assertThat(p.state()).isEqualTo(ConnectionState.EXPOSED);
        p.markBroken();
        assertThat(p.state()).isEqualTo(ConnectionState.BROKEN);
    }
}
