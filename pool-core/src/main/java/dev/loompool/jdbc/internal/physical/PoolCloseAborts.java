package dev.loompool.jdbc.internal.physical;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code close()} of the pool does to the connections still bound to handles (DESIGN.md §4,
 * "Reset on return"): a handle dropped without close, or one its user still holds, would otherwise
 * keep its connection open on the server, maybe idle in a transaction, until the JVM exits.
 *
 * <p>The pool takes each binding from its handle, gives a statement still running on it a grace
 * of validationTimeout (default 5 s) to finish, all connections side by side, and then aborts every
 * one: the server rolls back what was not committed. The grace is the bound the pool already puts
 * on a round trip it waits for (a validation, a reset); it lets an autocommit statement that was
 * about to complete do so, as HikariCP's shutdown gives lent connections up to 10 s. A connection
 * with nothing running answers the grace's ping at once, so a dropped handle costs no wait.
 * A later call on such a handle gets the usual "connection is closed" errors.
 */
final class PoolCloseAborts {

    private static final Logger log = LoggerFactory.getLogger(PoolCloseAborts.class);

    private PoolCloseAborts() {
    }

    static void abortBound(JdbcPool pool) {
        List<PhysicalConnection> taken = new ArrayList<>();
        for (PhysicalConnection p : pool.connections) {
            long b = p.binding();
            if (b != 0 && p.unbind(b)) { // now the pool's: the handle's close or release no longer returns it
                taken.add(p);
                BindingHolder h = p.holder();
                if (h != null) {
                    h.takenFromUnderIt();
                }
            }
        }
        if (taken.isEmpty()) {
            return;
        }
        Executor ownThread = r -> {
            Thread t = new Thread(r, "loompool-close-" + pool.name);
            t.setDaemon(true);
            t.start();
        };
        List<CompletableFuture<Void>> graces = new ArrayList<>();
        for (PhysicalConnection p : taken) {
            // isValid waits for the driver's lock, so for a statement still running, then pings.
            graces.add(CompletableFuture.runAsync(() -> {
                try {
                    p.raw.isValid(pool.validationSeconds());
                } catch (SQLException e) {
                    // aborted below in any case
                }
            }, ownThread));
        }
        try {
            CompletableFuture.allOf(graces.toArray(new CompletableFuture<?>[0])).get(pool.validationSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // the grace is over: abort what still runs
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.warn("pool '{}': closed with {} connection(s) still bound to handles; aborted them, and the server rolls "
                + "back what they had not committed (close every Connection before the pool)", pool.name, taken.size());
        for (PhysicalConnection p : taken) {
            ForeignRelease.abort(p, true);
            p.home().giveBack(p); // retired as broken, and destroyed by the closed pool
        }
    }
}
