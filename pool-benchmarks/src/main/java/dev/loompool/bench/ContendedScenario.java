package dev.loompool.bench;

import java.util.List;

/**
 * A scenario whose threads far outnumber the connections (P8, P9), run on loompool and HikariCP
 * only: the comparison the issues ask for; the other pools add minutes, not insight.
 */
interface ContendedScenario extends Scenario {

    @Override
    default List<PoolKind> pools() {
        return List.of(PoolKind.LOOMPOOL, PoolKind.HIKARI);
    }

    /**
     * HikariCP does not serve its waiters in order (a thread that has just released a connection,
     * or just arrived, can take one ahead of them), so under this load some of its waiters starve
     * until its acquire timeout; how many is a matter of timing. Those are its result, counted in
     * the table, not a failure of the run. Any other error of a peer means the set-up is wrong
     * (say {@code prepared statement "S_1" already exists}), and any error of loompool's is a failure.
     */
    @Override
    default long failures(Trial t) {
        return t.pool == PoolKind.LOOMPOOL ? t.errors : t.errors - t.acquireFailures;
    }
}
