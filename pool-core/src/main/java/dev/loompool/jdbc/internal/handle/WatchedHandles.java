package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.BindingHolder;
import dev.loompool.jdbc.internal.physical.JdbcPool;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reclaimer's list of the handles under watch ({@link HandleWatch}) that have not ended yet, as
 * far as its last scan knew: a door of this room, which makes the watches, so that the reclaimer
 * above counts dropped handles down without naming a handle type. Its scans only.
 */
public final class WatchedHandles {

    private static final Logger log = LoggerFactory.getLogger(WatchedHandles.class);

    private final List<HandleWatch> watches = new ArrayList<>();

    /**
     * Takes in the new watches and looks at every watch: one whose handle was collected without
     * being counted down is counted down now; one whose handle ended is dropped (whatever ended it
     * counted it down); a new one is confirmed, so that its handle may be collected, from the scan
     * after the one that took it in.
     */
    public void poll(JdbcPool pool, long scanNumber) {
        for (Reference<? extends BindingHolder> r; (r = pool.watches.poll()) != null; ) {
            HandleWatch w = (HandleWatch) r; // the handles' watches: this room makes them
            w.takenInAtScan = scanNumber;
            watches.add(w);
        }
        for (int i = watches.size() - 1; i >= 0; i--) {
            HandleWatch w = watches.get(i);
            HandleLife handle = w.get();
            if (w.countedDown()) {
                w.confirm();
            } else if (handle == null) {
                if (w.countDown()) {
                    pool.handles.ended();
                    log.debug("pool '{}': a handle dropped without close was collected; it no longer counts as open",
                            pool.name);
                }
            } else if (!handle.isOpen()) {
                w.confirm();
            } else {
                if (w.pending() && w.takenInAtScan < scanNumber) {
                    w.confirm();
                }
                continue;
            }
            int last = watches.size() - 1;
            watches.set(i, watches.get(last));
            watches.remove(last);
        }
    }
}
