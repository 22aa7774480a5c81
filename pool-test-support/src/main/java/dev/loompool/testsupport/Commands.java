package dev.loompool.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the server programs: as {@code postgres} when this JVM is root, their output in a log file. */
final class Commands {

    private Commands() {
    }

    /** PostgreSQL and PgBouncer both refuse to run as root: a root JVM runs them as {@code postgres}. */
    static boolean asPostgres() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** {@code program args…}, behind {@code runuser -u postgres --} when this JVM is root. */
    static List<String> command(Path program, String... args) {
        List<String> command = new ArrayList<>();
        if (asPostgres()) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(program.toString());
        command.addAll(List.of(args));
        return command;
    }

    /**
     * Runs a command in {@code dir} with its output appended to {@code commands.log} there (a file,
     * not a pipe: a daemon that inherited a pipe would keep a reader waiting for its end). With
     * {@code check}, a non-zero exit throws, with the end of that log and of {@code server.log}.
     */
    static void exec(List<String> command, Path dir, boolean check) throws IOException {
        Path log = dir.resolve("commands.log");
        Files.writeString(log, "$ " + String.join(" ", command) + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out after 90 s: " + String.join(" ", command));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
        if (check && p.exitValue() != 0) {
            throw new IOException("exit code " + p.exitValue() + " from " + String.join(" ", command) + "\n" + tail(log)
                    + tail(dir.resolve("server.log")));
        }
    }

    /** The last 20 lines of a log file, for an error message; empty if there is none. */
    static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return "--- " + file.getFileName() + "\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())) + "\n";
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * A port free on 127.0.0.1 right now. Another process may take it before the server binds it;
     * the servers then fail to start with "address in use", which is rare enough not to retry.
     */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }
}
