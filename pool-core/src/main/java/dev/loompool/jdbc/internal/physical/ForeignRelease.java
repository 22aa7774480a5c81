package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.RunningQuery;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A release by a thread other than the one running the handle's SQL: a watchdog's {@code close()}
 * may come while the user's statement still runs on the connection (a {@code Statement.close()}
 * on another thread does not let the connection go at all, see LogicalStatement). The driver's transaction state is then not current (MariaDB Connector/J updates
 * its status flags, a plain field, as the replies come in), and the connection must not be lent
 * while the statement runs. So the release first waits for the statement, through a driver call
 * that takes the driver's own lock and whose reply carries the state (DESIGN.md §4, "Transaction
 * state from the wire"), bounded by validationTimeout: a statement that does not finish in time
 * has its connection aborted, and the connection is never reused.
 */
public final class ForeignRelease {

    private ForeignRelease() {
    }

    /**
     * Waits up to validationTimeout for a statement still running on {@code p}, then confirms the
     * driver's reading of the transaction state. If that fails or takes too long, {@code p} is
     * aborted and marked broken: the release check then retires it instead of reusing it.
     */
    public static void settle(PhysicalConnection p) {
        if (validWithin(p, TimeUnit.SECONDS.toNanos(p.home().validationSeconds()), true)) {
            // current now, unless the ping does not carry it to the driver (MySQL Connector/J):
            // then the release check rolls back by SQL rather than trust it
            p.wireUnknown = p.wireReadable && p.wire.staleAfterErrors() && !p.wire.confirmedByPing();
        } else {
            p.markBroken();
        }
    }

    /**
     * {@code isValid} on {@code p}, answered within {@code nanos}. isValid takes whole seconds: it
     * gets the whole seconds in {@code nanos} (at least one), and bounds itself by them. Where that
     * is not enough a timer aborts the connection (marked broken) if it has not answered by then:
     * less than a second to spend, or a statement that may still run on it ({@code running}), since
     * isValid does not bound its wait for the driver's lock; the abort cancels that statement first
     * (else PostgreSQL runs it to its end). The common validation, of an idle connection with a
     * second or more to spend, arms no timer.
     */
    static boolean validWithin(PhysicalConnection p, long nanos, boolean running) {
        int seconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, nanos / 1_000_000_000L));
        if (!running && nanos >= 1_000_000_000L) {
            try {
                return p.raw.isValid(seconds);
            } catch (SQLException e) {
                return false;
            }
        }
        AtomicBoolean over = new AtomicBoolean();
        CompletableFuture<Void> timer = CompletableFuture.runAsync(() -> {
            if (over.compareAndSet(false, true)) {
                abort(p, running);
            }
        }, CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS));
        boolean valid;
        try {
            valid = p.raw.isValid(seconds);
        } catch (SQLException e) {
            valid = false;
        }
        if (!over.compareAndSet(false, true)) {
            return false; // the timer aborted it
        }
        timer.cancel(false);
        return valid;
    }

    /** Marks {@code p} broken and aborts it: what it runs ends, and the server rolls back its transaction. */
    static void abort(PhysicalConnection p, boolean running) {
        p.markBroken();
        if (running) {
            RunningQuery.cancel(p.raw); // else PostgreSQL runs the statement to its end first
        }
        try {
            p.raw.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            // the close in the release check follows; it logs what still fails
        }
    }
}
