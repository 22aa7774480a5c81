package dev.loompool.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Where one private server lives, and how it goes away: a {@link Scratch} directory of its own, a
 * free port on 127.0.0.1, and a shutdown hook that stops the server and deletes the directory
 * should the test never {@link #close} it. What stopping takes is the launcher's ({@link PgCluster},
 * {@link PgBouncer}): it is given as {@code stop}.
 */
final class ServerHome {

    final Path dir;
    final int port;
    private final Consumer<ServerHome> stop;
    private final Thread cleanup;
    private volatile boolean destroyed;

    private ServerHome(Path dir, int port, Consumer<ServerHome> stop, String cleanupThread) {
        this.dir = dir;
        this.port = port;
        this.stop = stop;
        this.cleanup = new Thread(this::destroy, cleanupThread);
    }

    /** A new directory and port, the cleanup hook registered before any server can run in it. */
    static ServerHome allocate(String prefix, String cleanupThread, Consumer<ServerHome> stop) throws IOException {
        Path dir = Scratch.create(prefix);
        ServerHome home = new ServerHome(dir, Commands.freePort(), stop, cleanupThread);
        Runtime.getRuntime().addShutdownHook(home.cleanup);
        return home;
    }

    /** {@code jdbc:postgresql://127.0.0.1:port/database?user=postgres}, then {@code &extraParams} if not empty. */
    String jdbcUrl(String database, String extraParams) {
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
        return extraParams == null || extraParams.isEmpty() ? url : url + "&" + extraParams;
    }

    /** Stops the server and deletes the directory. Idempotent. */
    void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it finds the server destroyed
        }
    }

    private void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        stop.accept(this);
        Scratch.delete(dir);
    }
}
