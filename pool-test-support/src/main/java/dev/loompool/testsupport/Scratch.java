package dev.loompool.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The throwaway directories the launchers run their servers in, under the temp directory. Each
 * records the pid of the JVM that owns it ({@code owner.pid}), so that a directory left by a JVM
 * killed before its shutdown hook ran is recognised, and cleaned up, by the next run.
 */
final class Scratch {

    private static final String OWNER = "owner.pid";

    private Scratch() {
    }

    /** A fresh directory owned by this JVM, handed to {@code postgres} when the servers run as that user. */
    static Path create(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        Files.writeString(dir.resolve(OWNER), Long.toString(ProcessHandle.current().pid()));
        if (Commands.asPostgres()) {
            Commands.exec(List.of("chown", "-R", "postgres:postgres", dir.toString()), dir, true);
        }
        return dir;
    }

    /** The directories with one of these prefixes whose owning JVM is gone. */
    private static List<Path> orphans(String... prefixes) throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> orphans = new ArrayList<>();
        try (Stream<Path> entries = Files.list(tmp)) {
            entries.filter(p -> Stream.of(prefixes).anyMatch(p.getFileName().toString()::startsWith)).forEach(p -> {
                try {
                    long owner = Long.parseLong(Files.readString(p.resolve(OWNER)).trim());
                    if (ProcessHandle.of(owner).isEmpty()) {
                        orphans.add(p);
                    }
                } catch (IOException | NumberFormatException e) {
                    // not one of ours, or being created right now: leave it
                }
            });
        }
        return orphans;
    }

    /**
     * Stops ({@code stop}) and deletes the directories with one of these prefixes whose JVM is gone
     * (killed before its hook ran), saying so on stderr as the {@code what} of that JVM.
     */
    static void removeOrphans(String what, Consumer<Path> stop, String... prefixes) throws IOException {
        for (Path orphan : orphans(prefixes)) {
            System.err.println("removing the " + what + " of a JVM that is gone: " + orphan);
            stop.accept(orphan);
            delete(orphan);
        }
    }

    /** Deletes a directory and everything in it; a failure is reported, never thrown (cleanup must go on). */
    static void delete(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not delete " + root + ": " + e.getMessage());
        }
    }
}
