package dev.loompool.stub;

/**
 * One row, then none: a cheap connection's result set, one field for the same reason as
 * {@link StubStatement}. A strict connection's are {@link StrictResultSet}s.
 */
class StubResultSet extends NoOpResultSet {

    private boolean read;

    @Override
    public boolean next() {
        boolean first = !read;
        read = true;
        return first;
    }

    @Override
    public int getInt(int column) {
        return 1;
    }
}
