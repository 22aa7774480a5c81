package dev.loompool.stub;

/**
 * A strict connection's result set: open on its connection until closed; its one row holds the
 * connection's id in its first column, so that a test sees which physical connection answered.
 */
final class StrictResultSet extends StubResultSet {

    private final StubConnection connection;
    /** Null for a metadata result set. */
    private final StrictStatement statement;
    private boolean closed;

    StrictResultSet(StubConnection connection, StrictStatement statement) {
        this.connection = connection;
        this.statement = statement;
        connection.openStatements.incrementAndGet();
    }

    @Override
    public int getInt(int column) {
        return connection.id();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            connection.openStatements.decrementAndGet();
            if (statement != null) {
                statement.completed();
            }
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }
}
