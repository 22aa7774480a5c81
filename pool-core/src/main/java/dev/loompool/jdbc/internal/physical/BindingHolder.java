package dev.loompool.jdbc.internal.physical;

/**
 * What holds a lent {@link PhysicalConnection}: the handle the user holds, which lives in the room
 * above. The connection keeps it strongly while a binding is short, and weakly, through a
 * {@link java.lang.ref.Reference} to it (the handle's watch), once the housekeeper has seen the same
 * binding at two scans; this room only stores, compares and swaps it. A type of this room, so that
 * a connection names its holder without naming the handle.
 */
public interface BindingHolder {

    /**
     * The pool (its close, or the reclaimer) ended this holder's binding from under it: the
     * holder's next call must say so and never reach the connection. Called by whoever won the
     * compare-and-set on the binding, right after it.
     */
    void takenFromUnderIt();

    /**
     * The connection this holder let go of last is going (retired, evicted, broken), so nobody will
     * bind it again and notice the holder left open: a holder still open is put under watch, so
     * that it is counted down once it is dropped. Called by the pool as it destroys the connection.
     */
    void lastConnectionGone();
}
