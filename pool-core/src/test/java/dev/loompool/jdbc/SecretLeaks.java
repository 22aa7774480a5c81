package dev.loompool.jdbc;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * What an exception or the log would show anyone, for tests that look for a secret in it: every
 * message, toString and stack trace of an exception, its causes, suppressed and next exceptions;
 * and what loompool logged while a block ran (slf4j-simple writes to {@code System.err}); and the
 * secret every input of the secret-masking tests holds.
 */
public final class SecretLeaks {

    /** The secret every input of the secret-masking tests ({@link SecretMaskingPools}) holds. */
    static final String SECRET = "S3cretTok9";

    private SecretLeaks() {
    }

    /** Everything {@code t} shows: each exception reachable from it, by cause, suppressed or next exception. */
    public static String everything(Throwable t) {
        StringBuilder out = new StringBuilder();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> todo = new ArrayDeque<>();
        todo.add(t);
        while (!todo.isEmpty()) {
            Throwable x = todo.poll();
            if (!seen.add(x)) {
                continue;
            }
            out.append(x).append('\n').append(x.getMessage()).append('\n').append(x.getLocalizedMessage()).append('\n');
            StringWriter trace = new StringWriter();
            x.printStackTrace(new PrintWriter(trace));
            out.append(trace).append('\n');
            if (x.getCause() != null) {
                todo.add(x.getCause());
            }
            todo.addAll(java.util.List.of(x.getSuppressed()));
            if (x instanceof SQLException s && s.getNextException() != null) {
                todo.add(s.getNextException());
            }
        }
        return out.toString();
    }

    /** What was written to {@code System.err} (where slf4j-simple logs) while {@code block} ran. */
    static String logOf(ThrowingRunnable block) throws Exception {
        try (CapturedLog log = CapturedLog.start()) {
            block.run();
            return log.text();
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Copies what is written to {@code System.err} until closed; the output still goes where it went. */
    static final class CapturedLog implements AutoCloseable {

        private final PrintStream original = System.err;
        private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

        private CapturedLog() {
            OutputStream tee = new OutputStream() {
                @Override
                public void write(int b) {
                    captured.write(b);
                    original.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    captured.write(b, off, len);
                    original.write(b, off, len);
                }
            };
            System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
        }

        static CapturedLog start() {
            return new CapturedLog();
        }

        /** What was logged so far. */
        String text() {
            System.err.flush();
            return captured.toString(StandardCharsets.UTF_8);
        }

        @Override
        public void close() {
            System.err.flush();
            System.setErr(original);
        }
    }
}
