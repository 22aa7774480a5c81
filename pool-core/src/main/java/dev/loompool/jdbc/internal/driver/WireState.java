package dev.loompool.jdbc.internal.driver;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.sql.Connection;

/**
 * Whether the server reports a transaction open on a connection, as the driver last heard it:
 * PostgreSQL says so in every ReadyForQuery, MySQL and MariaDB in the status flags of every OK
 * packet (DESIGN.md §4, "Transaction state from the wire"). Reading it costs no round trip and no
 * allocation: one method handle, found once per driver class, over a field the driver keeps.
 *
 * <ul>
 * <li>pgjdbc: {@code BaseConnection#getTransactionState()}, an enum whose {@code IDLE} is the only
 * state outside a transaction ({@code OPEN}, {@code FAILED} are inside). Any driver with that
 * shape is read the same way.</li>
 * <li>MariaDB Connector/J: {@code Connection#getContext().getServerStatus()}, flag
 * {@code SERVER_STATUS_IN_TRANS}; also {@code SERVER_STATUS_AUTOCOMMIT} cleared while the pool
 * believes autocommit is on (SQL changed it behind the driver's back).</li>
 * <li>MySQL Connector/J: {@code getSession().getServerSession().getStatusFlags()}, the same two
 * flags as MariaDB's; where an older one lacks it, {@code inTransactionOnServer()} alone.</li>
 * </ul>
 * A driver it cannot read is {@link #UNREADABLE}: the SQL classifier and the JDBC calls decide.
 */
public final class WireState {

    public static final WireState UNREADABLE = new WireState(Kind.UNREADABLE, null, null);

    /** MySQL protocol status flags. */
    private static final int SERVER_STATUS_IN_TRANS = 1;
    private static final int SERVER_STATUS_AUTOCOMMIT = 2;

    private enum Kind {
        UNREADABLE,
        /** The handle returns the idle constant, or another state. */
        IDLE_CONSTANT,
        /** The handle returns the MySQL status flags, as MariaDB Connector/J keeps them. */
        STATUS_FLAGS,
        /**
         * The handle returns the MySQL status flags, as MySQL Connector/J keeps them: its own rules
         * after an error and a ping ({@link #staleAfterErrors}, {@link #confirmedByPing}).
         */
        SESSION_FLAGS,
        /** The handle returns whether a transaction is open. */
        FLAG
    }

    private final Kind kind;
    /** pgjdbc: its setAutoCommit outside a transaction changes a field and sends nothing. */
    private final boolean autoCommitInMemory;
    /** (Connection) -> Object, int or boolean, by kind. */
    private final MethodHandle read;
    private final Object idle;

    private WireState(Kind kind, MethodHandle read, Object idle) {
        this(kind, read, idle, false);
    }

    private WireState(Kind kind, MethodHandle read, Object idle, boolean autoCommitInMemory) {
        this.kind = kind;
        this.autoCommitInMemory = autoCommitInMemory;
        this.read = read;
        this.idle = idle;
    }

    /** How to read a connection of {@code raw}'s class, or {@link #UNREADABLE}. */
    public static WireState of(Connection raw) {
        Class<?> type = raw.getClass();
        try {
            MethodHandle state = DriverMethods.find(type, "getTransactionState");
            if (state != null && state.type().returnType().isEnum()) {
                for (Object constant : state.type().returnType().getEnumConstants()) {
                    if (((Enum<?>) constant).name().equals("IDLE")) {
                        return new WireState(Kind.IDLE_CONSTANT, adapt(state, Object.class), constant,
                                type.getName().startsWith("org.postgresql."));
                    }
                }
            }
            MethodHandle context = DriverMethods.find(type, "getContext");
            MethodHandle status = context == null ? null : DriverMethods.find(context.type().returnType(), "getServerStatus");
            if (status != null && status.type().returnType() == int.class) {
                return new WireState(Kind.STATUS_FLAGS,
                        adapt(MethodHandles.filterReturnValue(context, status), int.class), null);
            }
            MethodHandle session = DriverMethods.find(type, "getSession");
            MethodHandle server = session == null ? null : DriverMethods.find(session.type().returnType(), "getServerSession");
            if (server != null) {
                MethodHandle serverSession = MethodHandles.filterReturnValue(session, server);
                Class<?> serverType = server.type().returnType();
                MethodHandle flags = DriverMethods.find(serverType, "getStatusFlags");
                if (flags != null && flags.type().returnType() == int.class) {
                    return new WireState(Kind.SESSION_FLAGS,
                            adapt(MethodHandles.filterReturnValue(serverSession, flags), int.class), null);
                }
                MethodHandle inTx = DriverMethods.find(serverType, "inTransactionOnServer");
                if (inTx != null && inTx.type().returnType() == boolean.class) {
                    return new WireState(Kind.FLAG,
                            adapt(MethodHandles.filterReturnValue(serverSession, inTx), boolean.class), null);
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            return UNREADABLE;
        }
        return UNREADABLE;
    }

    private static MethodHandle adapt(MethodHandle h, Class<?> result) {
        return h.asType(MethodType.methodType(result, Connection.class));
    }

    public boolean readable() {
        return kind != Kind.UNREADABLE;
    }

    /**
     * Whether {@code setAutoCommit} outside a transaction talks to the server: pgjdbc keeps
     * autocommit in memory (it sends BEGIN with the next statement), MySQL's and MariaDB's drivers
     * send {@code SET autocommit}, and a driver not known here is taken to talk.
     */
    public boolean autoCommitInMemory() {
        return autoCommitInMemory;
    }

    /**
     * Whether a driver error may leave the reading stale: the MySQL protocol's error packet carries
     * no status flags (MariaDB Connector/J then sets SERVER_STATUS_IN_TRANS on its own, so the
     * reading says "in transaction" until the next OK packet). PostgreSQL ends every error with a
     * ReadyForQuery, which pgjdbc reads before it throws: its reading is current. MySQL
     * Connector/J keeps the state of the last OK packet it stored: after
     * {@code START TRANSACTION; <an error>} it says "no transaction" on an open one.
     */
    public boolean staleAfterErrors() {
        return kind != Kind.IDLE_CONSTANT && kind != Kind.UNREADABLE;
    }

    /**
     * Whether a ping makes the reading current: MariaDB Connector/J stores the status flags of the
     * ping's OK packet; MySQL Connector/J does not (tried on the server: still "no transaction"
     * after a ping inside an open one), and a statement's OK is needed.
     */
    public boolean confirmedByPing() {
        return kind == Kind.STATUS_FLAGS;
    }

    /**
     * Whether the server has a transaction open on {@code raw} (or failed inside one), or runs it
     * with autocommit off although the pool set it on. An unreadable answer counts as open.
     */
    public boolean transactionOpen(Connection raw, boolean autoCommitExpected) {
        try {
            switch (kind) {
                case IDLE_CONSTANT:
                    return (Object) read.invokeExact(raw) != idle;
                case STATUS_FLAGS, SESSION_FLAGS:
                    int status = (int) read.invokeExact(raw);
                    return (status & SERVER_STATUS_IN_TRANS) != 0
                            || autoCommitExpected && (status & SERVER_STATUS_AUTOCOMMIT) == 0;
                case FLAG:
                    return (boolean) read.invokeExact(raw);
                default:
                    return false;
            }
        } catch (Throwable e) {
            return true; // when in doubt, keep the connection
        }
    }
}
