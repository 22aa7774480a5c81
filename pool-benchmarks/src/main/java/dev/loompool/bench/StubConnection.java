package dev.loompool.bench;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.locks.LockSupport;

/** A connection that does nothing but answer what pools ask of it; queries park {@code parkNanos}. */
final class StubConnection extends NoOpConnection {

    private final long parkNanos;
    private boolean autoCommit = true;
    private boolean closed;

    StubConnection(long parkNanos) {
        this.parkNanos = parkNanos;
    }

    @Override
    public PreparedStatement prepareStatement(String sql) {
        return new StubStatement(this);
    }

    @Override
    public Statement createStatement() {
        return new StubStatement(this);
    }

    void query() {
        if (parkNanos > 0) {
            LockSupport.parkNanos(parkNanos);
        }
    }

    @Override
    public boolean isValid(int timeout) {
        return !closed;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public boolean getAutoCommit() {
        return autoCommit;
    }

    @Override
    public void setAutoCommit(boolean autoCommit) {
        this.autoCommit = autoCommit;
    }

    @Override
    public int getTransactionIsolation() {
        return Connection.TRANSACTION_READ_COMMITTED;
    }

    @Override
    public int getHoldability() {
        return ResultSet.HOLD_CURSORS_OVER_COMMIT;
    }

    @Override
    public DatabaseMetaData getMetaData() {
        return new NoOpDatabaseMetaData() {
            @Override
            public String getDatabaseProductName() {
                return "Stub";
            }

            @Override
            public int getJDBCMajorVersion() {
                return 4;
            }

            @Override
            public int getJDBCMinorVersion() {
                return 3;
            }
        };
    }
}
