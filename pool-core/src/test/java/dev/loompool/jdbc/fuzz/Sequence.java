package dev.loompool.jdbc.fuzz;

import java.util.ArrayList;
import java.util.List;

/** What borrower A does, from getConnection to close, on a pool with these defaults. */
record Sequence(PoolDefaults defaults, List<Step> steps) {

    Sequence without(int from, int count) {
        List<Step> fewer = new ArrayList<>(steps.subList(0, from));
        fewer.addAll(steps.subList(from + count, steps.size()));
        return new Sequence(defaults, fewer);
    }

    Sequence withDefaults(PoolDefaults d) {
        return new Sequence(d, steps);
    }

    /** The known finding one of its steps triggers, or null. */
    Known known() {
        return steps.stream().map(Step::known).filter(k -> k != null).findFirst().orElse(null);
    }

    String code() {
        StringBuilder s = new StringBuilder("pool defaults: ").append(defaults).append('\n');
        for (int i = 0; i < steps.size(); i++) {
            s.append(String.format("  %2d  %s%n", i, steps.get(i).code()));
        }
        return s.toString();
    }
}
