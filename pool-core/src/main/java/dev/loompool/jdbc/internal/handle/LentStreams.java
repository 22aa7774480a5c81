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
 * connection as they go, so each call checks, as its object does, that the binding it was made
 * under still holds. Once it ended, reads and writes fail ({@link IOException} caused by the
 * refusal), and {@code close()} does nothing: closing the driver's stream then would close a
 * descriptor of the next borrower's session.
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

    private static void check(LentObject<?> owner) throws IOException {
        try {
            owner.check();
        } catch (SQLException e) {
            throw new IOException(e.getMessage(), e);
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
            check(owner);
            return super.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            check(owner);
            return in.read(b, off, len);
        }

        @Override
        public long skip(long n) throws IOException {
            check(owner);
            return super.skip(n);
        }

        @Override
        public int available() throws IOException {
            check(owner);
            return super.available();
        }

        @Override
        public void reset() throws IOException {
            check(owner);
            super.reset();
        }

        @Override
        public void close() throws IOException {
            if (owner.live()) {
                super.close();
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
            check(owner);
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            check(owner);
            out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            check(owner);
            out.flush();
        }

        @Override
        public void close() throws IOException {
            if (owner.live()) {
                out.close();
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
            check(owner);
            return super.read();
        }

        @Override
        public int read(char[] b, int off, int len) throws IOException {
            check(owner);
            return super.read(b, off, len);
        }

        @Override
        public long skip(long n) throws IOException {
            check(owner);
            return super.skip(n);
        }

        @Override
        public boolean ready() throws IOException {
            check(owner);
            return super.ready();
        }

        @Override
        public void reset() throws IOException {
            check(owner);
            super.reset();
        }

        @Override
        public void close() throws IOException {
            if (owner.live()) {
                super.close();
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
            check(owner);
            super.write(c);
        }

        @Override
        public void write(char[] b, int off, int len) throws IOException {
            check(owner);
            super.write(b, off, len);
        }

        @Override
        public void write(String s, int off, int len) throws IOException {
            check(owner);
            super.write(s, off, len);
        }

        @Override
        public void flush() throws IOException {
            check(owner);
            super.flush();
        }

        @Override
        public void close() throws IOException {
            if (owner.live()) {
                super.close();
            }
        }
    }
}
