package dev.loompool.jdbc.internal.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import org.junit.jupiter.api.Test;

class BrokenConnectionsTest {

    @Test
    void connectionClassStatesAndShutdownsMeanBroken() {
        assertThat(BrokenConnections.isBroken(new SQLException("x", "08006"))).isTrue();
        assertThat(BrokenConnections.isBroken(new SQLException("x", "08003"))).isTrue();
        assertThat(BrokenConnections.isBroken(new SQLException("x", "57P01"))).isTrue();
        assertThat(BrokenConnections.isBroken(new SQLException("x", "57P03"))).isTrue();
        assertThat(BrokenConnections.isBroken(new SQLNonTransientConnectionException("x"))).isTrue();
        assertThat(BrokenConnections.isBroken(new SQLRecoverableException("x"))).isTrue();
        assertThat(BrokenConnections.isBroken(new SQLException("gone away", "HY000", 2006))).isTrue();
        assertThat(BrokenConnections.isBroken(new SQLException("killed", "70100", 1927))).isTrue();
    }

    @Test
    void ordinaryErrorsDoNot() {
        assertThat(BrokenConnections.isBroken(new SQLException("syntax", "42601"))).isFalse();
        assertThat(BrokenConnections.isBroken(new SQLException("dup", "23505"))).isFalse();
        assertThat(BrokenConnections.isBroken(new SQLException("deadlock", "40P01"))).isFalse();
        assertThat(BrokenConnections.isBroken(new SQLException("other vendor's 2006", "42000", 2006))).isFalse();
    }

    @Test
    void aChainedBrokenExceptionCounts() {
        SQLException batch = new SQLException("batch failed", "22000");
        batch.setNextException(new SQLException("connection lost", "08006"));
        assertThat(BrokenConnections.isBroken(batch)).isTrue();
    }
}
