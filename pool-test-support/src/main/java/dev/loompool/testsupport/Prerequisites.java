package dev.loompool.testsupport;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * The programs a test needs to start its own servers, or the reason there are none: the test is
 * skipped, except under {@code CI=true}, where it fails (CI installs them; a skip there would hide
 * that it stopped doing so).
 */
public final class Prerequisites {

    private Prerequisites() {
    }

    /** PostgreSQL's bin directory ({@link PgCluster#findBinaries()}), able to run as this user. */
    public static Path postgresBinaries() {
        Optional<Path> bin = PgCluster.findBinaries();
        if (bin.isEmpty()) {
            unavailable("no PostgreSQL server programs (initdb, pg_ctl) in /usr/lib/postgresql/<version>/bin");
        }
        requirePostgresUserWhenRoot();
        return bin.orElseThrow();
    }

    /** The pgbouncer program ({@link PgBouncer#findBinary()}), able to run as this user. */
    public static Path pgbouncer() {
        Optional<Path> binary = PgBouncer.findBinary();
        if (binary.isEmpty()) {
            unavailable("no pgbouncer on the PATH nor in /usr/sbin (apt-get install pgbouncer)");
        }
        requirePostgresUserWhenRoot();
        return binary.orElseThrow();
    }

    private static void requirePostgresUserWhenRoot() {
        if (Commands.asPostgres()) {
            try {
                FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            } catch (IOException e) {
                unavailable("running as root, and there is no user 'postgres' to run the servers as");
            }
        }
    }

    private static void unavailable(String why) {
        String message = "cannot start a private server: " + why;
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError(message + " (CI=true: CI must install it)");
        }
        System.err.println(message + " (skipped; under CI=true this fails)");
        Assumptions.abort(message);
    }
}
