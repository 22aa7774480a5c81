package dev.loompool.bench;

import java.util.List;

/**
 * A scenario whose pools run at sizes of their own (P10c: loompool given fewer connections than
 * HikariCP). Its trials are kept by contender, a pool at one size, and each contender is compared
 * with one of them, the {@link #baseline}.
 */
interface SizedScenario extends Scenario {

    /** A pool at min = max {@code size}: "loompool@2". */
    record Contender(PoolKind pool, int size) {

        String label() {
            return pool.label + "@" + size;
        }
    }

    /** In the order the report lists them; the rounds alternate them as they do pools. */
    List<Contender> contenders();

    /** The contender every other is compared with. */
    Contender baseline();

    Trial run(Contender contender, Mode mode) throws Exception;

    @Override
    default List<PoolKind> pools() {
        return contenders().stream().map(Contender::pool).distinct().toList();
    }

    /** The pool at the first size it is listed at. */
    @Override
    default Trial run(PoolKind pool, Mode mode) throws Exception {
        return run(contenders().stream().filter(c -> c.pool() == pool).findFirst().orElseThrow(), mode);
    }
}
