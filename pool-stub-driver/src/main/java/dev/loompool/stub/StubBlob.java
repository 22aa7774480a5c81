package dev.loompool.stub;

import java.io.IOException;
import java.io.InputStream;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * A LOB of a {@link StubConnection} that talks to its connection at every call, as pgjdbc's large
 * objects do: each call, and each read of its stream, goes through {@link StubConnection#lobCall},
 * which logs it among the connection's SQL and runs a test's hook at its entry. Its bytes live here;
 * what is not spelled out is its generated base's: nothing, null, zero or false.
 */
final class StubBlob extends NoOpBlob {

    private final StubConnection connection;
    private volatile byte[] bytes = new byte[0];

    StubBlob(StubConnection connection) {
        this.connection = connection;
    }

    @Override
    public long length() throws SQLException {
        connection.lobCall("length");
        return bytes.length;
    }

    @Override
    public byte[] getBytes(long pos, int length) throws SQLException {
        connection.lobCall("getBytes");
        int from = (int) Math.min(pos - 1, bytes.length);
        return Arrays.copyOfRange(bytes, from, Math.min(bytes.length, from + length));
    }

    @Override
    public int setBytes(long pos, byte[] b) throws SQLException {
        connection.lobCall("setBytes");
        byte[] now = Arrays.copyOf(bytes, Math.max(bytes.length, (int) pos - 1 + b.length));
        System.arraycopy(b, 0, now, (int) pos - 1, b.length);
        bytes = now;
        return b.length;
    }

    @Override
    public InputStream getBinaryStream() throws SQLException {
        connection.lobCall("getBinaryStream");
        return new InputStream() {
            private int next;

            @Override
            public int read() throws IOException {
                try {
                    connection.lobCall("read");
                } catch (SQLException e) {
                    throw new IOException(e);
                }
                byte[] b = bytes;
                return next < b.length ? b[next++] & 0xff : -1;
            }
        };
    }

    @Override
    public void free() throws SQLException {
        connection.lobCall("free");
    }
}
