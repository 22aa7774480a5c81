package dev.loompool.jdbc.internal.handle;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.FilterReader;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Writer;
import java.sql.SQLException;

/**
 * The streams of a lent LOB or {@code SQLXML}: pgjdbc's read and write the large object through the
 * connection as they go, so each call is a run of the handle and checks, as its object does, that
 * the binding it was made under still holds. Once it ended, reads and writes fail
 * ({@link IOException} caused by the refusal), and {@code close()} does nothing: closing the
 * driver's stream then would close a descriptor of the next borrower's session.
 */
final class LentStreams {

    private LentStreams() {
    }

    static InputStream in(LentObject<?> owner, InputStream s) {
        return s == null ? null : new CheckedIn(owner, s);
    }

    static OutputStream out(LentObject<?> owner, OutputStream s) {
        return s == null ? null : new CheckedOut(owner, s);
    }

    static Reader reader(LentObject<?> owner, Reader s) {
        return s == null ? null : new CheckedReader(owner, s);
    }

    static Writer writer(LentObject<?> owner, Writer s) {
        return s == null ? null : new CheckedWriter(owner, s);
    }

    /**
     * A read or write becomes a run of the owner's handle, as every call on the owner does
     * ({@link LentObject#enter}): a release waits for it, or it sees the binding gone and fails.
     * Per read: two atomic adds on the handle's run count, no allocation.
     */
    private static LogicalConnection enter(LentObject<?> owner) throws IOException {
        try {
            return owner.enter();
        } catch (SQLException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** For {@code close()}: the run, or null once the binding ended (the driver's stream went with it). */
    private static LogicalConnection enterQuietly(LentObject<?> owner) {
        try {
            return owner.enter();
        } catch (SQLException ended) {
            return null;
        }
    }

    private static final class CheckedIn extends FilterInputStream {
        private final LentObject<?> owner;

        CheckedIn(LentObject<?> owner, InputStream s) {
            super(s);
            this.owner = owner;
        }

        @Override
        public int read() throws IOException {
            LogicalConnection h = enter(owner);
            try {
                return super.read();
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            LogicalConnection h = enter(owner);
            try {
                return in.read(b, off, len);
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public long skip(long n) throws IOException {
            LogicalConnection h = enter(owner);
            try {
                return super.skip(n);
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public int available() throws IOException {
            LogicalConnection h = enter(owner);
            try {
                return super.available();
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void reset() throws IOException {
            LogicalConnection h = enter(owner);
            try {
                super.reset();
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void close() throws IOException {
            LogicalConnection h = enterQuietly(owner);
            if (h != null) {
                try {
                    super.close();
                } finally {
                    owner.leave(h);
                }
            }
        }
    }

    private static final class CheckedOut extends FilterOutputStream {
        private final LentObject<?> owner;

        CheckedOut(LentObject<?> owner, OutputStream s) {
            super(s);
            this.owner = owner;
        }

        @Override
        public void write(int b) throws IOException {
            LogicalConnection h = enter(owner);
            try {
                out.write(b);
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            LogicalConnection h = enter(owner);
            try {
                out.write(b, off, len);
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void flush() throws IOException {
            LogicalConnection h = enter(owner);
            try {
                out.flush();
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void close() throws IOException {
            LogicalConnection h = enterQuietly(owner);
            if (h != null) {
                try {
                    out.close();
                } finally {
                    owner.leave(h);
                }
            }
        }
    }

    private static final class CheckedReader extends FilterReader {
        private final LentObject<?> owner;

        CheckedReader(LentObject<?> owner, Reader s) {
            super(s);
            this.owner = owner;
        }

        @Override
        public int read() throws IOException {
            LogicalConnection h = enter(owner);
            try {
                return super.read();
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public int read(char[] b, int off, int len) throws IOException {
            LogicalConnection h = enter(owner);
            try {
                return super.read(b, off, len);
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public long skip(long n) throws IOException {
            LogicalConnection h = enter(owner);
            try {
                return super.skip(n);
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public boolean ready() throws IOException {
            LogicalConnection h = enter(owner);
            try {
                return super.ready();
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void reset() throws IOException {
            LogicalConnection h = enter(owner);
            try {
                super.reset();
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void close() throws IOException {
            LogicalConnection h = enterQuietly(owner);
            if (h != null) {
                try {
                    super.close();
                } finally {
                    owner.leave(h);
                }
            }
        }
    }

    private static final class CheckedWriter extends FilterWriter {
        private final LentObject<?> owner;

        CheckedWriter(LentObject<?> owner, Writer s) {
            super(s);
            this.owner = owner;
        }

        @Override
        public void write(int c) throws IOException {
            LogicalConnection h = enter(owner);
            try {
                super.write(c);
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void write(char[] b, int off, int len) throws IOException {
            LogicalConnection h = enter(owner);
            try {
                super.write(b, off, len);
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void write(String s, int off, int len) throws IOException {
            LogicalConnection h = enter(owner);
            try {
                super.write(s, off, len);
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void flush() throws IOException {
            LogicalConnection h = enter(owner);
            try {
                super.flush();
            } finally {
                owner.leave(h);
            }
        }

        @Override
        public void close() throws IOException {
            LogicalConnection h = enterQuietly(owner);
            if (h != null) {
                try {
                    super.close();
                } finally {
                    owner.leave(h);
                }
            }
        }
    }
}
