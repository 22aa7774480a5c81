package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.JdbcPool;
import dev.loompool.jdbc.internal.driver.JdbcUrls;
import dev.loompool.jdbc.internal.sql.SqlClassifier;
import dev.loompool.jdbc.internal.sql.SqlEffect;
import dev.loompool.jdbc.ServerPooler;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The rules behind a pooler in transaction mode (DESIGN.md §7, {@link ServerPooler#PGBOUNCER_TRANSACTION}):
 * it hands every transaction to whichever server connection is free, so state left on a session
 * reaches another client, and what a session held (a SET, a prepared statement, a lock) may be
 * gone at the next transaction. The pool refuses what would leave such state, instead of pinning
 * a connection whose session the pooler does not keep, and never resets a session itself.
 */
public final class TransactionPooling {

    private static final String SETTING = "serverPooler is PGBOUNCER_TRANSACTION (loompool.server-pooler=pgbouncer-transaction)";
    private static final String WHY = "PgBouncer in transaction mode gives the next transaction any server connection,"
            + " and what this leaves on the session to another client";

    private TransactionPooling() {
    }

    /**
     * SQL that leaves session state is refused behind the pooler, and so is SQL whose effect the
     * pool cannot see ({@code DO}, {@code CALL}: the pin table's rule); what the classifier says
     * only of a session it keeps ({@code nextval}, {@code set_config(…, true)}) passes, as
     * {@link SqlClassifier#classifyBehindPooler} reads it.
     *
     * @throws SQLException SQLState 0A000, naming the statement and the setting
     */
    static SqlEffect check(LogicalConnection h, SqlEffect effect, String sql, Statement prepared) throws SQLException {
        try {
            return check(h, effect, sql);
        } catch (SQLException refused) {
            if (prepared != null) {
                Tracked.closeQuietly(prepared); // refused at prepare time: the driver's statement goes
            }
            throw refused;
        }
    }

    private static SqlEffect check(LogicalConnection h, SqlEffect effect, String sql) throws SQLException {
        SqlEffect behind = h.classifier().classifyBehindPooler(sql);
        if (!behind.session) {
            return behind;
        }
        JdbcPool pool = h.pool;
        throw pool.factory.secrets().mask(new SQLException("pool '" + pool.name + "': refused " + quote(sql)
                + ": it leaves state on the session, and " + SETTING + "; " + WHY + ". Keep it inside a transaction "
                + "(SET LOCAL, set_config(name, value, true), pg_advisory_xact_lock, ON COMMIT DROP, INSERT … "
                + "RETURNING instead of currval), or run it (and DO or CALL) on a data source that connects without "
                + "the pooler ("
                + pool.pool.stats() + ")", "0A000"));
    }

    /** A JDBC setter the driver implements as session SQL, asked for a value other than the pool's default. */
    static SQLException refusedSetting(JdbcPool pool, String call) {
        return pool.factory.secrets().mask(new SQLException("pool '" + pool.name + "': refused " + call + ": the driver "
                + "sets it on the session, and " + SETTING + "; " + WHY + ". Set it inside the transaction (SET LOCAL "
                + "search_path …), or on the database or role (ALTER ROLE … SET …) (" + pool.pool.stats() + ")", "0A000"));
    }

    /**
     * A statement in autocommit mode on a handle whose isolation is not the default: the level is
     * sent at the start of each transaction ({@link TransactionIsolation}), and a statement in
     * autocommit mode has none to send it in; run at the server's level it could be weaker.
     */
    static SQLException refusedInAutoCommit(JdbcPool pool, String sql, String level, String serverLevel) {
        return pool.factory.secrets().mask(new SQLException("pool '" + pool.name + "': refused "
                + (sql != null ? quote(sql) : "a statement") + " in autocommit mode at transaction isolation " + level
                + ": " + SETTING + ", so the pool sends the isolation as the first statement of each transaction (SET "
                + "TRANSACTION ISOLATION LEVEL " + level + "), and a statement in autocommit mode would run at the "
                + "server's " + serverLevel + ". Run it in a transaction (setAutoCommit(false)), or set the isolation "
                + "back to the default first (" + pool.pool.stats() + ")", "0A000"));
    }

    /**
     * With autocommit off, a text or batch in which a statement that ends or begins a transaction
     * is followed by another: what follows runs in a transaction the pool cannot send the isolation
     * level in ({@link TransactionIsolation}), at whichever level the server connection has.
     */
    static SQLException refusedAfterBoundary(JdbcPool pool, String sql, String where) {
        return pool.factory.secrets().mask(new SQLException("pool '" + pool.name + "': refused "
                + (sql != null ? quote(sql) : "the batch") + ": with autocommit off, " + where + " ends or begins a "
                + "transaction (COMMIT, ROLLBACK, END, ABORT, BEGIN, START TRANSACTION) and then runs another statement, "
                + "and " + SETTING + ", so the pool sends the transaction isolation as the first statement of each "
                + "transaction, which it cannot do in the middle of one execute. Send the statements separately "
                + "(commit(), or the COMMIT on its own, then the next statement) (" + pool.pool.stats() + ")", "0A000"));
    }

    /**
     * The driver's own object: SQL through it (and through its {@code getConnection()}) bypasses
     * these checks, and closing the pool's connection afterwards does not reset the server
     * session PgBouncer hands on.
     */
    static SQLException refusedUnwrap(JdbcPool pool, Class<?> iface) {
        return new SQLException("pool '" + pool.name + "': refused unwrap(" + iface.getName() + "): what runs on the "
                + "driver's own objects is not checked, and " + SETTING + "; " + WHY + ". Run driver-specific work "
                + "(COPY, large objects, notifications) on a data source that connects without the pooler ("
                + pool.pool.stats() + ")", "0A000");
    }

    /**
     * What {@link #checkSettings} reads of the pool's settings: the pool's frozen config, in the
     * room above, is one, and this room never names it.
     */
    public interface StartSettings {

        String jdbcUrl();

        Properties dataSourceProperties();

        String transactionIsolation();

        String schema();

        String connectionInitSql();
    }

    /** At start: what the pool would set on every new session, which the pooler would hand to others. */
    public static void checkSettings(StartSettings config, SqlClassifier postgres) {
        String url = config.jdbcUrl().toLowerCase(Locale.ROOT);
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("serverPooler PGBOUNCER_TRANSACTION needs a PostgreSQL jdbcUrl "
                    + "(jdbc:postgresql:…), was " + JdbcUrls.redact(config.jdbcUrl()) + "; allowed values for another "
                    + "database: NONE");
        }
        if (config.transactionIsolation() != null) {
            // Sent per transaction it would not reach a statement in autocommit mode (TransactionIsolation):
            // the role's default reaches every statement, through any server connection.
            throw new IllegalArgumentException("transactionIsolation " + config.transactionIsolation() + " is set on "
                    + "every new session, and " + SETTING + ": PgBouncer would not keep it for the pool's transactions. "
                    + "Set it on the database or role instead (ALTER ROLE … SET default_transaction_isolation = "
                    + "'serializable'), which covers statements in autocommit mode too, and leave transactionIsolation "
                    + "unset; a transaction that needs another level asks for it with Connection.setTransactionIsolation "
                    + "(Spring's @Transactional(isolation = …)), which the pool sends at the start of each transaction");
        }
        refuseAtStart("schema", config.schema());
        String initSql = config.connectionInitSql();
        if (initSql != null && !initSql.isBlank() && postgres.classify(initSql).session) {
            throw new IllegalArgumentException("connectionInitSql " + quote(initSql) + " leaves state on the session, and "
                    + SETTING + ": PgBouncer runs it on one server connection and the pool's later transactions on "
                    + "others; set it on the database or role instead (ALTER ROLE … SET …)");
        }
        if (Pattern.compile("(?i)[?&;]readOnlyMode=always").matcher(config.jdbcUrl()).find()
                || "always".equalsIgnoreCase(config.dataSourceProperties().getProperty("readOnlyMode"))) {
            throw new IllegalArgumentException("readOnlyMode=always makes pgjdbc set read-only on the session, and "
                    + SETTING + "; use readOnlyMode=transaction (pgjdbc's default)");
        }
    }

    private static void refuseAtStart(String setting, String value) {
        if (value != null) {
            throw new IllegalArgumentException(setting + " " + value + " is set on every new session, and " + SETTING
                    + ": PgBouncer would not keep it for the pool's transactions; set it on the database or role "
                    + "instead (ALTER ROLE … SET …), or leave " + setting + " unset");
        }
    }

    /**
     * pgjdbc's named server-side statements live on one server connection, which the pooler does
     * not keep: unnamed ones ({@code prepareThreshold=0}, batches included) unless the user chose.
     */
    public static Properties withUnnamedStatements(String url, Properties properties) {
        Properties copy = new Properties();
        copy.putAll(properties);
        JdbcUrls.setUnlessGiven(url, copy, "prepareThreshold", "0");
        return copy;
    }

    /** The start of a statement, for a message: enough to find it, and nothing past its first line. */
    static String quote(String sql) {
        String s = sql.strip();
        int end = s.indexOf('\n');
        s = end < 0 ? s : s.substring(0, end);
        return "\"" + (s.length() > 80 ? s.substring(0, 77) + "..." : s) + "\"";
    }
}
