package dev.loompool.jdbc.internal.physical;

import dev.loompool.jdbc.internal.driver.SessionAttribute;
import dev.loompool.jdbc.internal.driver.Settings;
import dev.loompool.jdbc.internal.driver.WireState;
import dev.loompool.engine.Entry;
import dev.loompool.jdbc.PinReason;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pool's record of one physical connection: its settings now and at rest, its dirty flags,
 * and while it is lent, the binding and the handle holding it.
 *
 * <p>The mutable fields belong to the thread that holds the connection; the housekeeper reads the
 * volatile ones, and touches the rest only once the holder is gone.
 */
public final class PhysicalConnection {

    private static final VarHandle HOLDER = VarHandles.varHandle(MethodHandles.lookup(), "holder", Object.class);
    private static final VarHandle BINDING = VarHandles.varHandle(MethodHandles.lookup(), "binding", long.class);
    private static final VarHandle STATE = VarHandles.varHandle(MethodHandles.lookup(), "state", ConnectionState.class);
    private static final VarHandle RUNNER = VarHandles.varHandle(MethodHandles.lookup(), "runner", Thread.class);
    private static final VarHandle CALLS = VarHandles.varHandle(MethodHandles.lookup(), "calls", int.class);
    private static final VarHandle HANDLES = VarHandles.varHandle(MethodHandles.lookup(), "handlesCounted", long.class);
    /** Connections made in this JVM: each one's binding numbers start at its id, shifted (4 billion binds each). */
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final int STATEMENT_BIT = PinTimes.bit(PinReason.STATEMENT);
    private static final int STATEMENT_INDEX = PinReason.STATEMENT.ordinal();

    public final Connection raw;
    /** The pool it belongs to (the primary's or a replica's), which it goes back to; set once, before it is first lent. */
    private JdbcPool home;
    /** Its entry in {@code home}'s generic pool, the token it goes back with; set when first lent. */
    Entry<PhysicalConnection> entry;
    /** How to read from the driver whether the server has a transaction open on {@link #raw}. */
    final WireState wire;
    /** {@code wire.readable()}, kept here: the release path asks it several times a cycle. */
    public final boolean wireReadable;
    /** Its number, unique in the JVM: what the lifecycle lines call it ("connection #12"). */
    final int id;
    final long createdAt;
    /** When max lifetime (with jitter) retires it; Long.MAX_VALUE never. */
    final long expiresAt;
    /** What a returned connection is reset to: the pool's defaults as this connection took them. */
    final Settings defaults;
    /** What is set on the connection now; {@code marked} holds the attributes that differ from defaults. */
    Settings current;

    long lastReturnedAt;
    /** When the pool last handed it out, on the coarse clock (fresh connections: when made); the bind time of its handle. */
    long handedOutAt;
    /** The pin reasons timed on this binding ({@link PinTimes}), by ordinal, and when each started. */
    int pinsTimed;
    final long[] pinSince = new long[dev.loompool.jdbc.PinReason.values().length];
    /** The per-statement pin reasons (and RELEASE_MODE) that held on this binding: a bit each, no clock. */
    int pinsSeen;
    /** Their samples, summed here by the holder ({@link PinTimes.Local}). */
    final PinTimes.Local pinLocal = new PinTimes.Local();
    /** The handles whose first use this connection served ({@link HandleCount}): written by its holder, read by anyone. */
    @SuppressWarnings("unused") // through HANDLES
    private long handlesCounted;
    /** What started each reason, by ordinal: the SQL run (a reference, masked when read) or a call's label. Holder only. */
    final String[] pinStartedBy = new String[pinSince.length];
    PinEvent[] pinEvents; // Flight Recorder's, of the timed reasons, begun as each started; null unless recorded
    /** SQL left session state: reset (or destroy) before reuse. */
    boolean sessionDirty;
    /** For a driver whose transaction state cannot be read: a transaction may be open since the last commit or rollback. */
    boolean transactionDirty;
    /**
     * The binding number of the last statement a handle ran on it, with the handle's {@code KEPT} bit
     * set if a statement of that binding left a value for a later one; 0 for none. Here rather than
     * in the handle, which is allocated on every getConnection (P6): a binding is one handle's, so
     * its number says whose the statement was. Plain: written and read by the holder only.
     */
    private long lastStatement;
    /** See {@link #savepointsSet()}. Plain: written and read by the holder only. */
    private boolean savepointsSet;
    /**
     * The binding whose SELECT last ran on it (MySQL and MariaDB): {@code FOUND_ROWS()} answers that
     * SELECT's count, so a handle reads it only if the SELECT was its own on the binding it holds.
     * 0 for none. Plain: written and read by the holder only.
     */
    private long foundBy;
    /**
     * The binding whose statement last left a value on the session ({@code nextval}, an
     * {@code INSERT}), 0 for none or once discarded: SQL the pool cannot read (a function) could
     * read it there for another binding (the handle's {@code StatementValues.discardOthers}). Holder only.
     */
    private long valuesLeftBy;
    /**
     * The binding whose {@link dev.loompool.jdbc.PinReason#EXPLICIT} pin is only for arrays the
     * handle made ({@code createArrayOf}), 0 for none: it ends when the handle's next statement runs
     * (the handle's {@code Pins.arraysBound}). Holder only.
     */
    private long arraysMadeBy;
    /** SQL that may change the catalog ran on it: the function table is read when it comes back. Holder only. */
    boolean ranDdl;
    /**
     * Its session's search path may have changed ({@code setSchema}, SQL naming the path): the
     * driver's type names, looked up under it, are put back as on a fresh connection on return
     * (the driver room's {@code TypeNames}). Always with a reset due (SQL: session state; the
     * schema: marked), so the common return reads nothing more. Holder only.
     */
    boolean searchPathChanged;
    /**
     * The holder's {@code setSchema} ran inside a transaction. Where the driver sends it as SQL
     * (pgjdbc's {@code SET SESSION search_path}), a rollback, whole or to a savepoint, by JDBC or by
     * SQL, undoes it, so until the holder lets go and asks the driver ({@link #schemaSettled}), what
     * {@link #current} says of the schema may not be what the session has: the getter asks the
     * driver, and a setter always sends. Holder only.
     */
    boolean schemaInTransaction;
    /**
     * The driver's reading of the transaction state may not be current: a driver error since the
     * last confirmation, where an error leaves it stale ({@link WireState#staleAfterErrors()}).
     * Unknown means kept, until a round trip that reports the status confirms it
     * ({@link #confirmWire()}); only a release after an error pays it. Plain: the holder's own.
     */
    boolean wireUnknown;
    /** The binding whose transaction open now was sent its handle's isolation behind a pooler, else 0. Holder only. */
    private long isolationSentIn;
    /** What SQL left that no reset removes (a loaded library): retired on return, not reused; else null. */
    String unresettable;
    /**
     * The thread that runs this binding's SQL: the binder, then whichever thread ran a statement
     * last. A close from any other thread (a watchdog, even one that asked {@code isClosed()} first
     * and so became the handle's user) may come while this one is inside a call
     * ({@link ForeignRelease}). Written plainly by the binder before the binding is published, and
     * opaquely when another thread runs a statement (rare); read opaquely by a closer once it ended
     * the binding.
     */
    Thread runner;
    /**
     * Transaction calls and setters under way on it ({@link #enter}): a close from another thread
     * that finds one cannot know where it will land, so the connection is retired, not lent again.
     * Atomic on both sides (the caller's add, the closer's compare-and-set of the binding, then its
     * read), so one of them always sees the other; never on the statement path.
     */
    @SuppressWarnings("unused") // accessed through CALLS
    private int calls;
    /** Changed only through the transitions below (by CAS through STATE). */
    private volatile ConnectionState state = ConnectionState.HEALTHY;

    /**
     * Which binding holds it: that binding's number while lent, 0 while idle. Whoever swaps it to 0
     * (the handle or the reclaimer) gives the connection back, so that happens once per binding;
     * the number tells a binding from the next one of the same connection, which is what a fresh
     * lease per acquire did, without the object. A field with a VarHandle rather than an AtomicLong:
     * no separate little object whose cache line another connection's may share.
     */
    @SuppressWarnings("unused") // accessed through BINDING
    private long binding;
    /**
     * The number of its last binding; the next one's is one more. Each connection counts in its own
     * range (its id in the high half), so that no number of one connection is ever one of another's:
     * a stale handle holding one connection's number cannot end a binding of another. Written only
     * by the binder, which holds the connection.
     */
    private long bindings;
    /**
     * The handle holding it ({@link BindingHolder}): strongly at first, because most bindings last
     * microseconds and a {@code WeakReference} per bind would cost the hot path an allocation;
     * through the handle's watch, a {@link Reference} to it (weakly), once the housekeeper has seen
     * the same binding at two scans, so that a handle dropped without close can be collected and
     * found out.
     *
     * <p>It stays when the connection goes back: it is also the note of the last holder, which may
     * have let go of the connection and been dropped without close. The next binder overwrites it,
     * and puts that handle under watch if it is still open (the housekeeper does the same for an
     * idle connection), so that no handle is lost to the open count. Keeping it costs the common
     * cycle nothing: the bind writes it anyway, and the close of the handle need not clear it.
     *
     * <p>A plain field written by the binder, published by the release-store of {@link #binding},
     * which the housekeeper reads first; the housekeeper changes it only by CAS.
     */
    @SuppressWarnings("unused") // accessed through HOLDER, and plainly by the binder
    private Object holder;
    /**
     * Why the release check or an idle check refused it, in words (max lifetime, idle timeout, the
     * reset's failure…): what its "retired" line says beside the generic pool's reason. Written
     * only on the way out, by the thread that then destroys it.
     */
    private String retiredFor;
    /** Where it was bound, when leak detection is on (it costs nothing otherwise); else null. */
    private volatile Throwable boundFrom;
    /** The leak of this binding was reported (reset at a bind with leak detection on). */
    private volatile boolean leakReported;

    PhysicalConnection(Connection raw, WireState wire, Settings defaults, long createdAt, long expiresAt) {
        this.raw = raw;
        this.wire = wire;
        this.wireReadable = wire.readable();
        this.defaults = defaults;
        this.current = defaults.copy();
        this.createdAt = createdAt;
        this.expiresAt = expiresAt;
        this.lastReturnedAt = createdAt;
        this.handedOutAt = createdAt;
        this.id = IDS.incrementAndGet();
        this.bindings = (long) id << 32;
    }

    /** Its holder's handle is used for the first time: it counts as open ({@link HandleCount}). Holder only. */
    public void countHandle() {
        HANDLES.setOpaque(this, (long) HANDLES.getOpaque(this) + 1);
    }

    /** Its holder's first use was undone (a close on another thread ended the handle first). Holder only. */
    public void uncountHandle() {
        HANDLES.setOpaque(this, (long) HANDLES.getOpaque(this) - 1);
    }

    long handlesCounted() {
        return (long) HANDLES.getOpaque(this);
    }

    /** Its count, for the shared sum, as it goes: nobody holds it any more, so nobody counts on it again. */
    long takeHandleCount() {
        long n = (long) HANDLES.getOpaque(this);
        HANDLES.setOpaque(this, 0L);
        return n;
    }

    /** Whether the driver says a transaction is open (or failed) on it, false if it cannot say; a stale reading is confirmed first (open if it cannot be). */
    /** Whether {@link #serverTransactionOpen} would ask the server (after a driver error whose reply carried no state). */
    public boolean stateUnconfirmed() {
        return wireReadable && wireUnknown;
    }

    public boolean serverTransactionOpen() {
        return wireReadable && (wireUnknown && !confirmWire() || wire.transactionOpen(raw, current.autoCommit()));
    }

    /**
     * The driver's last reading of the transaction state, not confirmed: for a connection that
     * just broke, which cannot be asked. False where the driver cannot say (the pin decides then).
     */
    public boolean transactionOpenBeforeError() {
        return wireReadable && wire.transactionOpen(raw, current.autoCommit());
    }

    /**
     * Whether returning it needs a rollback: the server's word where it can be read, else the
     * dirty flag. A stale reading is not trusted: the rollback it costs is the round trip a
     * confirmation would cost, and it waits for the driver, as the confirmation does.
     */
    /**
     * Whether undoing what the last holder left costs no round trip: it only turned autocommit off,
     * on a driver that keeps autocommit in memory (pgjdbc), with no transaction open, as every
     * transaction Spring runs ends (commit, then setAutoCommit(true) on the unbound handle).
     */
    boolean undoesInMemory() {
        return wire.autoCommitInMemory() && current.marked.size() == 1
                && current.marked.contains(SessionAttribute.AUTO_COMMIT) && !serverTransactionOpen();
    }

    boolean transactionMayBeOpen() {
        return wireReadable ? wireUnknown || wire.transactionOpen(raw, current.autoCommit()) : transactionDirty;
    }

    /** A driver error: the transaction state is unknown until a reply that carries it. */
    public void driverError() {
        if (wireReadable && wire.staleAfterErrors()) {
            wireUnknown = true;
        }
    }

    /**
     * Makes the driver's reading current: a ping (COM_PING), whose OK packet carries the status
     * flags, which MariaDB Connector/J stores (checked in its OkPacket.parse, and on the server);
     * for MySQL Connector/J, whose ping does not, {@code DO 0}, whose OK it stores. The driver
     * takes its own lock for either, so a statement still running finishes first. False if the
     * connection did not answer within validationTimeout: it is then broken.
     */
    boolean confirmWire() {
        try {
            if (wire.confirmedByPing()) {
                if (raw.isValid(home.validationSeconds())) {
                    wireUnknown = false;
                    return true;
                }
            } else {
                try (Statement st = raw.createStatement()) {
                    st.setQueryTimeout(home.validationSeconds());
                    st.execute("DO 0");
                }
                wireUnknown = false;
                return true;
            }
        } catch (SQLException e) {
            // not answering: broken, below
        }
        markBroken();
        return false;
    }

    /**
     * Sets attribute {@code a} to the handle's value if it differs, and remembers it: marked for the reset
     * unless it is back at the default (as HikariCP's dirty bits). Once SQL changed the session, what the
     * pool last set may no longer be what the server has: set it anyway, and keep it marked.
     */
    public void apply(Settings wanted, SessionAttribute a) throws SQLException {
        if (sessionDirty || a == SessionAttribute.SCHEMA && schemaInTransaction || !current.same(wanted, a)) {
            wanted.applyTo(raw, a);
            current.copyFrom(wanted, a);
            if (a == SessionAttribute.SCHEMA) {
                // a schema set and set back still leaves the driver's type names as the other path found them
                searchPathChanged = true;
                current.marked.add(a);
                if (!current.autoCommit() || serverTransactionOpen()) {
                    schemaInTransaction = true;
                }
            } else if (sessionDirty || !current.same(defaults, a)) {
                current.marked.add(a);
            } else { // Spring puts autoCommit back after each transaction: nothing is left to reset
                current.marked.remove(a);
            }
        }
    }

    public ConnectionState state() {
        return state;
    }

    /** A driver exception said the connection is gone. */
    public void markBroken() {
        moveTo(ConnectionState.BROKEN);
    }

    /** Asked to go: retired on its way back, or at its next check while idle. */
    void markEvicted() {
        moveTo(ConnectionState.EVICTED);
    }

    /** Its binding ended while another thread's transaction call or setter was under way on it. */
    void markClosedUnderUser() {
        moveTo(ConnectionState.CLOSED_UNDER_USER);
    }

    /** The driver's own connection or state was handed out. */
    public void markExposed() {
        moveTo(ConnectionState.EXPOSED);
    }

    /** A LOB, array or struct of the driver's was handed out. */
    public void markLendingDriverObjects() {
        moveTo(ConnectionState.LENDING_DRIVER_OBJECTS);
    }

    /** Its handle let go: so did the application of its LOBs (JDBC ends them with the connection's use). */
    void endLendingDriverObjects() {
        if (state == ConnectionState.LENDING_DRIVER_OBJECTS) { // a plain read first: no CAS on every release
            STATE.compareAndSet(this, ConnectionState.LENDING_DRIVER_OBJECTS, ConnectionState.HEALTHY);
        }
    }

    /** Towards unfit only: a move to a fitter state is no move. */
    private void moveTo(ConnectionState target) {
        ConnectionState now;
        do {
            now = state;
            if (now.compareTo(target) >= 0) {
                return;
            }
        } while (!STATE.compareAndSet(this, now, target));
    }

    /**
     * Binds it to {@code handle}; {@link #handedOutAt} is the bind time.
     *
     * @return its last holder: a handle, a handle's watch, or null
     */
    public Object bind(BindingHolder handle, Throwable from) {
        Object last = holder;
        holder = handle;
        runner = Thread.currentThread();
        if (from != null) { // leak detection is on: its bookkeeping costs nothing otherwise
            boundFrom = from;
            leakReported = false;
        }
        BINDING.setRelease(this, ++bindings); // last: whoever reads the binding then sees the fields above
        return last;
    }

    /** A statement runs on the calling thread: it becomes the runner (a plain read when it already is). */
    public void ranOn(Thread t) {
        if (runner != t) {
            RUNNER.setOpaque(this, t);
        }
    }

    /**
     * A transaction call or setter of the handle holding binding {@code b} begins on it: counted,
     * then the binding is checked, so that a close on another thread either sees the call or the
     * call sees the close. Pair with {@link #leave()}.
     *
     * @return false if the binding ended (a close on another thread): the call must not reach it
     */
    public boolean enter(long b) {
        CALLS.getAndAdd(this, 1);
        if (binding() == b) {
            return true;
        }
        CALLS.getAndAdd(this, -1);
        return false;
    }

    public void leave() {
        CALLS.getAndAdd(this, -1);
    }

    /** Whether a transaction call or setter is under way: for a closer that ended the binding. */
    boolean callsUnderWay() {
        return (int) CALLS.getVolatile(this) > 0;
    }

    /** The thread that ran this binding's SQL last, for a closer that ended the binding. */
    public Thread runner() {
        return (Thread) RUNNER.getOpaque(this);
    }

    /** The number of the binding {@link #bind} just made: for the binder only, which wrote it. */
    public long boundAs() {
        return bindings;
    }

    /** The binding that holds it while lent, else 0; an acquire read, so the fields bound with it are seen too. */
    public long binding() {
        return (long) BINDING.getAcquire(this);
    }

    /**
     * Ends its binding only if it is still {@code expected}: a handle ends the binding it made, and
     * the reclaimer the one it saw, never a later one. Only one caller gets true, and it must give
     * the connection back.
     */
    public boolean unbind(long expected) {
        return expected != 0 && BINDING.compareAndSet(this, expected, 0L);
    }

    /** The handle holding it (while lent; its last holder while idle), or null if none or it was collected. */
    public BindingHolder holder() {
        Object h = HOLDER.getAcquire(this);
        return h instanceof Reference<?> w ? (BindingHolder) w.get() : (BindingHolder) h;
    }

    /** The holder as kept: a handle, a handle's watch, or null. */
    public Object lastHolder() {
        return HOLDER.getAcquire(this);
    }

    /** The watch through which it holds its handle weakly, or null if it holds it strongly. */
    public Reference<?> holderWatch() {
        return HOLDER.getAcquire(this) instanceof Reference<?> w ? w : null;
    }

    /** Whether the handle is held weakly and was collected: dropped without close. */
    public boolean holderCollected() {
        return HOLDER.getAcquire(this) instanceof Reference<?> w && w.get() == null;
    }

    /** From now on holds {@code handle} weakly through its {@code watch}, unless it let go of the connection meanwhile. */
    public void holdWeakly(BindingHolder handle, Reference<? extends BindingHolder> watch) {
        HOLDER.compareAndSet(this, handle, watch);
    }

    /** Drops the note of a last holder, unless a newer holder replaced it meanwhile. */
    public void forgetHolder(Object last) {
        HOLDER.compareAndSet(this, last, null);
    }

    // ---- its pool, its settings -----------------------------------------------------------------

    /** Joins {@code pool}, which it goes back to: once, before it is first lent. */
    void joinPool(JdbcPool pool) {
        if (home != null) {
            throw new IllegalStateException(this + " is in pool '" + home.name + "' already");
        }
        home = pool;
    }

    /** The pool it belongs to (the primary's or a replica's), which it goes back to. */
    public JdbcPool home() {
        return home;
    }

    /** What a returned connection is reset to: the pool's defaults as this connection took them. */
    public Settings defaults() {
        return defaults;
    }

    /** What is set on the connection now; {@code marked} holds the attributes that differ from defaults. */
    public Settings current() {
        return current;
    }

    /** When the pool last handed it out (fresh connections: when made); the bind time of its handle. */
    public long handedOutAt() {
        return handedOutAt;
    }

    // ---- what its holder's SQL did (the holder's own: plain fields) -------------------------------

    /** Whether SQL left session state: reset (or destroy) before reuse. */
    public boolean sessionDirty() {
        return sessionDirty;
    }

    /** SQL left session state on it: it is reset (or destroyed) before reuse. */
    public void noteSessionState() {
        sessionDirty = true;
    }

    /** For a driver whose transaction state cannot be read: a transaction may be open from now. */
    public void noteTransactionBegun() {
        transactionDirty = true;
    }

    /** A commit or rollback ended the transaction (for a driver whose state cannot be read), and its savepoints. */
    public void noteTransactionEnded() {
        transactionDirty = false;
        savepointsSet = false;
    }

    /** Its last holder's savepoints end with the holder's transaction, on its return. */
    void forgetSavepoints() {
        savepointsSet = false;
    }

    /** A savepoint call ran on it: see {@link #savepointsSet}. Holder only. */
    public void noteSavepoint() {
        savepointsSet = true;
    }

    /**
     * Whether a savepoint call ran since its transaction last ended: the savepoint is the session's
     * even where the server reports no transaction (MariaDB, before the transaction touched a
     * table), so an error does not end the handle's transaction pin.
     */
    public boolean savepointsSet() {
        return savepointsSet;
    }

    /** Whether a {@code setSchema} ran inside its transaction that may be rolled back: see {@link #schemaInTransaction}. */
    public boolean schemaUncertain() {
        return schemaInTransaction;
    }

    /** The driver was asked for the schema, outside any transaction: {@link #current} has it. */
    public void schemaSettled() {
        schemaInTransaction = false;
    }

    /** SQL that may change the search path ran on it (and left session state): see {@link #searchPathChanged}. */
    public void noteSearchPathChanged() {
        searchPathChanged = true;
    }

    /** SQL that may change the catalog ran on it: the function table is read when it comes back. */
    public void noteDdl() {
        ranDdl = true;
    }

    /** SQL left {@code why}, which no reset removes (a loaded library): retired on return, not reused. */
    public void noteUnresettable(String why) {
        unresettable = why;
    }

    /** A reply that carries the transaction state came (a commit or rollback): the driver's reading is current. */
    public void noteWireCurrent() {
        wireUnknown = false;
    }

    /** The binding whose transaction open now was sent its handle's isolation behind a pooler, else 0. */
    public long isolationSentIn() {
        return isolationSentIn;
    }

    /** The transaction open now on binding {@code binding} was sent its handle's isolation (behind a pooler). */
    public void noteIsolationSent(long binding) {
        isolationSentIn = binding;
    }

    /** The transaction ended: the next one is sent its own isolation. */
    public void forgetIsolationSent() {
        isolationSentIn = 0;
    }

    // ---- per-statement values (StatementValues' rules) --------------------------------------------

    /**
     * The binding number of the last statement a handle ran on it, with the handle's {@code KEPT} bit
     * set if a statement of that binding left a value for a later one; 0 for none.
     */
    public long lastStatement() {
        return lastStatement;
    }

    /** A statement ran on binding {@code binding} (with the {@code KEPT} bit if that binding left a value kept now). */
    public void noteStatement(long binding) {
        lastStatement = binding;
    }

    /** The binding whose SELECT last ran on it (MySQL, MariaDB), 0 for none. */
    public long foundBy() {
        return foundBy;
    }

    /** A SELECT ran on binding {@code binding}: the session's {@code FOUND_ROWS()} is its count now. */
    public void noteFound(long binding) {
        foundBy = binding;
    }

    /** The binding whose statement last left a value on the session, 0 for none or once discarded. */
    public long valuesLeftBy() {
        return valuesLeftBy;
    }

    /** A statement of binding {@code binding} left a value on the session ({@code nextval}, an {@code INSERT}). */
    public void noteValueLeft(long binding) {
        valuesLeftBy = binding;
    }

    /** The value left on the session was discarded: nobody's is there now. */
    public void noteValuesDiscarded() {
        valuesLeftBy = 0;
    }

    /** The binding whose {@link dev.loompool.jdbc.PinReason#EXPLICIT} pin is only for arrays the handle made, else 0. */
    public long arraysMadeBy() {
        return arraysMadeBy;
    }

    /** The binding that holds it now made an array, which alone pins it until its next statement runs. */
    public void noteArraysMade() {
        arraysMadeBy = bindings;
    }

    /** The pin of the arrays made ends: they were bound to a statement, or something else pins it now. */
    public void forgetArraysMade() {
        arraysMadeBy = 0;
    }

    // ---- pins (timed by PinTimes; the lazy ones a bit each) ---------------------------------------

    /** The timed pin reasons held on this binding, a bit each ({@link PinTimes#bit}). */
    public int pinsTimed() {
        return pinsTimed;
    }

    /** The per-statement pin reasons (and RELEASE_MODE) that held on this binding, a bit each. */
    public int pinsSeen() {
        return pinsSeen;
    }

    /** When timed reason {@code r} started (valid while its bit is in {@link #pinsTimed()}). */
    public long pinSince(PinReason r) {
        return pinSince[r.ordinal()];
    }

    /** What started {@code r}: the SQL run (a reference, masked when read) or a call's label. Holder only. */
    public String pinStartedBy(PinReason r) {
        return pinStartedBy[r.ordinal()];
    }

    /** Per-statement reason {@code r} holds on this binding, started by {@code by}: a bit, no clock. */
    public void pinSeen(PinReason r, String by) {
        pinsSeen |= PinTimes.bit(r);
        pinStartedBy[r.ordinal()] = by;
    }

    /**
     * A statement is tracked: the statement pin holds (its sample is the binding's length: no clock
     * per statement). If it {@code starts} the pin, {@code by} started it: stored only if it changed,
     * as a reference store dirties a GC card that other cores' stores share (P1 at 8 threads), and a
     * service repeats the same SQL.
     */
    public void statementPinSeen(boolean starts, String by) {
        pinsSeen |= STATEMENT_BIT;
        if (starts && pinStartedBy[STATEMENT_INDEX] != by) {
            pinStartedBy[STATEMENT_INDEX] = by;
        }
    }

    /** If {@code was} started the statement pin (a label), {@code by} names it instead (the first SQL run). */
    public void statementPinNamed(String was, String by) {
        if (pinStartedBy[STATEMENT_INDEX] == was) {
            pinStartedBy[STATEMENT_INDEX] = by;
        }
    }

    // ---- leak detection ---------------------------------------------------------------------------

    /** Where it was bound, when leak detection captured it; else null. */
    public Throwable boundFrom() {
        return boundFrom;
    }

    /**
     * The binding ended and its pins' events have read where it was bound (PinEvent): the stack
     * is not kept while the connection is idle. A plain read first, as most bindings have none.
     */
    void forgetBindSite() {
        if (boundFrom != null) {
            boundFrom = null;
        }
    }

    /** A check refused it, for {@code why}: it is destroyed next, and its lifecycle line says why. */
    void noteRetirement(String why) {
        retiredFor = why;
    }

    /** Why a check refused it, or null (the pool dropped it for a reason of its own: closed, shrunk). */
    String retirement() {
        return retiredFor;
    }

    /** Whether the leak of this binding was reported already. */
    public boolean leakReported() {
        return leakReported;
    }

    /** The leak of this binding was reported: once per binding (with leak detection on). */
    public void noteLeakReported() {
        leakReported = true;
    }

    @Override
    public String toString() {
        return "PhysicalConnection[" + raw + "]";
    }
}
