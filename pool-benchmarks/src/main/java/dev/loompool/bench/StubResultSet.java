package dev.loompool.bench;

/** One row, then none. */
final class StubResultSet extends NoOpResultSet {

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
