package dev.loompool.codegen;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;

/**
 * Writes the generated leaves of the JDBC wrappers (DESIGN.md §4, "Wrappers"): one final class per
 * interface that extends the hand-written class holding the rules and forwards every other method
 * to the driver's object. The generated code holds no rule: it calls up, into hooks of its
 * hand-written superclass, and nothing calls down into it.
 *
 * <pre>
 *   HandleLife &lt;- LogicalConnection   &lt;- DelegatingConnection          (every call binds, then done();
 *                                        a call that returns a statement only if it failed: the
 *                                        statement pins)
 *   LogicalStatement&lt;S&gt;               &lt;- DelegatingStatement, DelegatingPreparedStatement,
 *                                        DelegatingCallableStatement   (touch(); SQL hooks around execute*)
 *   LogicalResultSet                   &lt;- DelegatingResultSet           (touch())
 *   LogicalDatabaseMetaData            &lt;- DelegatingDatabaseMetaData    (every call binds, then done())
 *   LentObject&lt;T&gt;                      &lt;- LentBlob, LentClob, LentNClob, LentSQLXML, LentStruct, LentRef,
 *                                        LentResultSetMetaData, LentParameterMetaData
 *                                        (enter(): a run of the handle, and the check that the binding it
 *                                        was made under holds; leave(); streams likewise)
 * </pre>
 *
 * Wherever a parameter may be one of the lent objects (a LOB, array, SQLXML, struct or ref type, or
 * Object), it goes to the driver through {@code LentWrapping.driver}: the driver's own object, never ours.
 *
 * A method the hand-written class implements is listed in {@code HANDWRITTEN_*} and is not
 * generated; the hand-written ones are final, so a wrong list fails to compile either way (a
 * missing method, or an override of a final one). {@link JdbcMethods} writes the source; the build
 * compiles {@code codegen/} and runs {@code DelegateGenerator OUTPUT_DIR} (pool-core/pom.xml).
 */
public final class DelegateGenerator {

    private static final String PACKAGE = "dev.loompool.jdbc.internal.handle";
    /** The room below the handles (docs/ARCHITECTURE.md): its types are named in full, the leaves import nothing. */
    private static final String PHYSICAL = "dev.loompool.jdbc.internal.physical.";
    /**
     * Objects that live on the physical connection that made them: handing one out pins, and wraps
     * it (LentObject: it refuses once its binding ended). The metadata ones query it lazily in pgjdbc.
     */
    private static final Set<Class<?>> PINNING = Set.of(java.sql.Blob.class, java.sql.Clob.class,
            java.sql.NClob.class, java.sql.SQLXML.class, java.sql.Array.class, java.sql.Struct.class,
            java.sql.Ref.class, java.sql.ResultSetMetaData.class, java.sql.ParameterMetaData.class);
    /** What LogicalConnection and HandleLife implement themselves, by signature. */
    private static final Set<String> HANDWRITTEN_CONNECTION = Set.of(
            "close[]", "isClosed[]", "abort[interface java.util.concurrent.Executor]",
            "commit[]", "rollback[]", "setAutoCommit[boolean]", "getAutoCommit[]", "getMetaData[]",
            "setTransactionIsolation[int]", "getTransactionIsolation[]", "setReadOnly[boolean]", "isReadOnly[]",
            "setCatalog[class java.lang.String]", "getCatalog[]", "setSchema[class java.lang.String]", "getSchema[]",
            "setHoldability[int]", "getHoldability[]", "getNetworkTimeout[]",
            "setNetworkTimeout[interface java.util.concurrent.Executor, int]",
            "getWarnings[]", "clearWarnings[]", "isValid[int]", "beginRequest[]", "endRequest[]",
            "unwrap[class java.lang.Class]", "isWrapperFor[class java.lang.Class]", "setTypeMap[interface java.util.Map]",
            "setClientInfo[class java.lang.String, class java.lang.String]", "setClientInfo[class java.util.Properties]");
    /**
     * Calls that change the server's session or transaction (a savepoint, a sharding key): counted
     * as under way on the connection while they run, as commit() is, so that a close on another
     * thread that overtakes one retires the connection instead of lending it while the call may
     * still land in the next borrower's transaction.
     */
    private static final Set<String> SESSION_CALLS = Set.of("setSavepoint[]", "setSavepoint[class java.lang.String]",
            "rollback[interface java.sql.Savepoint]", "releaseSavepoint[interface java.sql.Savepoint]",
            "setShardingKey[interface java.sql.ShardingKey]",
            "setShardingKey[interface java.sql.ShardingKey, interface java.sql.ShardingKey]",
            "setShardingKeyIfValid[interface java.sql.ShardingKey, int]",
            "setShardingKeyIfValid[interface java.sql.ShardingKey, interface java.sql.ShardingKey, int]");

    /** What LogicalStatement and LogicalResultSet implement themselves (a result set has no closeOnCompletion nor cancel). */
    private static final Set<String> HANDWRITTEN_STATEMENT = Set.of("close[]", "isClosed[]", "closeOnCompletion[]", "cancel[]",
            "unwrap[class java.lang.Class]", "isWrapperFor[class java.lang.Class]");

    /** The updatable result set's calls that send SQL of the driver's own: LogicalResultSet runs the statement hook first. */
    private static final Set<String> HANDWRITTEN_RESULT_SET = Set.of("updateRow[]", "insertRow[]", "deleteRow[]",
            "refreshRow[]");

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0], PACKAGE.split("\\."));
        Files.createDirectories(dir);
        writeConnection(dir);
        writeStatement(dir, "DelegatingStatement", Statement.class);
        writeStatement(dir, "DelegatingPreparedStatement", PreparedStatement.class);
        writeStatement(dir, "DelegatingCallableStatement", CallableStatement.class);
        writeResultSet(dir);
        writeMetaData(dir);
        writeLent(dir, "LentBlob", java.sql.Blob.class);
        writeLent(dir, "LentClob", java.sql.Clob.class);
        writeLent(dir, "LentNClob", java.sql.NClob.class);
        writeLent(dir, "LentSQLXML", java.sql.SQLXML.class);
        writeLent(dir, "LentStruct", java.sql.Struct.class);
        writeLent(dir, "LentRef", java.sql.Ref.class);
        writeLent(dir, "LentResultSetMetaData", java.sql.ResultSetMetaData.class);
        writeLent(dir, "LentParameterMetaData", java.sql.ParameterMetaData.class);
    }

    /** Each call is a run of the handle: it binds a physical connection, calls it, and reports the call done. */
    private static void writeConnection(Path dir) throws IOException {
        JdbcMethods out = leaf("DelegatingConnection", "LogicalConnection", Connection.class);
        out.constructor(PHYSICAL + "JdbcPool pool", "super(pool);");
        for (Method m : JdbcMethods.of(Connection.class)) {
            if (HANDWRITTEN_CONNECTION.contains(JdbcMethods.signature(m))) {
                continue;
            }
            if (!JdbcMethods.throwsSql(m)) {
                throw new IllegalStateException("decide by hand, in LogicalConnection: " + m);
            }
            Class<?> r = m.getReturnType();
            if (SESSION_CALLS.contains(JdbcMethods.signature(m))) {
                // a run of the handle, as the other bound calls: see JdbcMethods.boundRun
                out.method(m, "runStarted();\n        try {\n            dev.loompool.jdbc.internal.physical.PhysicalConnection p = enterCall();\n"
                        + "            try {\n                " + (r == void.class ? "" : "return ") + "p.raw." + JdbcMethods.call(m)
                        + ";\n            } catch (java.sql.SQLException e) {\n                throw error(e);\n            } finally {\n"
                        + "                p.leave();\n            }\n        } finally {\n            runEnded();\n            done();\n        }");
                continue;
            }
            boolean tracked = r == Statement.class || r == PreparedStatement.class || r == CallableStatement.class;
            String call = "bindInRun()." + JdbcMethods.call(m);
            String sql = m.getParameterCount() > 0 && m.getParameterTypes()[0] == String.class
                    ? m.getParameters()[0].getName() : "null";
            String wrap = null;
            if (r == Statement.class) {
                wrap = "wrapStatement(made)";
            } else if (r == PreparedStatement.class) {
                wrap = "wrapPrepared(made, " + sql + (asksKeys(m) ? ", LogicalStatement.keysAsked("
                        + m.getParameters()[1].getName() + ")" : "") + ")";
            } else if (r == CallableStatement.class) {
                wrap = "wrapCallable(made, " + sql + ")";
            } else if (m.getName().equals("getTypeMap") || m.getName().equals("getClientInfo") && r != String.class) {
                // pgjdbc hands out the map it keeps: a put into it would reach every later borrower
                call = "SessionCalls.copyOf(" + call + ")";
            } else if (PINNING.contains(r)) {
                call = "pinned(" + call + ")"; // wrapped (a LentObject): it refuses once its binding ended
            }
            // A statement is tracked by its wrap hook and pins from then on: done() after it would
            // release nothing, and on the hot path (P1) it was an out-of-line call every prepare.
            out.method(m, tracked ? JdbcMethods.boundTracked(call, wrap, r)
                    : JdbcMethods.boundRun(call, r, "throw error(e);"));
        }
        out.write(dir);
    }

    /**
     * {@code prepareStatement}, {@code execute}, {@code executeUpdate} and {@code executeLargeUpdate}
     * of {@code (String sql, int autoGeneratedKeys | int[] columnIndexes | String[] columnNames)}:
     * whether the caller asks for the generated keys decides whether an INSERT's key pins (SqlEffect.keysAsked).
     */
    private static boolean asksKeys(Method m) {
        Class<?>[] p = m.getParameterTypes();
        return p.length == 2 && p[0] == String.class && (p[1] == int.class || p[1] == int[].class || p[1] == String[].class)
                && (m.getName().equals("prepareStatement") || m.getName().startsWith("execute"));
    }

    /** Each call first makes its thread the handle's user; SQL runs between the pin hooks. */
    private static void writeStatement(Path dir, String name, Class<?> iface) throws IOException {
        JdbcMethods out = leaf(name, "LogicalStatement<" + iface.getName() + ">", iface);
        out.constructor("LogicalConnection owner, " + iface.getName() + " delegate, dev.loompool.jdbc.internal.sql.SqlEffect effect",
                "super(owner, delegate, effect);");
        for (Method m : JdbcMethods.of(iface)) {
            if (HANDWRITTEN_STATEMENT.contains(JdbcMethods.signature(m))) {
                continue;
            }
            String call = "delegate." + driverCall(m);
            Class<?> r = m.getReturnType();
            String body;
            if (runsSql(m)) {
                // What the SQL does to the handle's pins: before it runs, and after it succeeded.
                // A batch is checked as a whole behind a pooler: what follows a COMMIT in it (LogicalStatement.batch*).
                boolean batch = m.getName().equals("addBatch") || m.getName().endsWith("Batch") && m.getParameterCount() == 0;
                String before = m.getParameterCount() > 0 && m.getParameterTypes()[0] == String.class
                        ? "dev.loompool.jdbc.internal.sql.SqlEffect effect = " + (batch ? "batchBefore(" : "sqlBefore(")
                                + m.getParameters()[0].getName()
                                + (asksKeys(m) ? ", keysAsked(" + m.getParameters()[1].getName() + ")" : "") + ");"
                        : "dev.loompool.jdbc.internal.sql.SqlEffect effect = " + (batch ? "batchRun();" : "sqlBefore();");
                String result = r == ResultSet.class ? "wrap(" + call + ")" : call;
                // A batched COMMIT has not run yet when it is added: only the BEGIN side applies.
                String after = m.getName().equals("addBatch") ? "" : "\n            sqlAfter(effect);";
                out.running(m, before + "\n            "
                        + (r == void.class ? result + ";" : r.getTypeName() + " result = " + result + ";")
                        + after + (r == void.class ? "" : "\n            return result;"));
                continue;
            } else if (m.getName().equals("clearBatch")) {
                body = "batchCleared();\n            " + call + ";";
            } else if (r == ResultSet.class) {
                body = "return wrap(" + call + ");";
            } else if (r == Connection.class) {
                body = "return connection();";
            } else {
                body = (r == void.class ? "" : "return ") + lent(m, call) + ";";
            }
            out.touching(m, body);
        }
        out.write(dir);
    }

    private static void writeResultSet(Path dir) throws IOException {
        JdbcMethods out = leaf("DelegatingResultSet", "LogicalResultSet", ResultSet.class);
        out.constructor("java.sql.ResultSet delegate, ResultSetOwner owner", "super(delegate, owner);");
        for (Method m : JdbcMethods.of(ResultSet.class)) {
            if (HANDWRITTEN_STATEMENT.contains(JdbcMethods.signature(m)) || HANDWRITTEN_RESULT_SET.contains(JdbcMethods.signature(m))) {
                continue; // close() and isClosed(); the row calls that make the driver send SQL of its own
            }
            Class<?> r = m.getReturnType();
            // An update is kept by the driver until updateRow or insertRow (pgjdbc's), when it may use
            // a lent object's connection: the wrapper goes in, checked again at that use (LentWrapping.kept).
            String call = "delegate." + driverCall(m, m.getName().startsWith("update") ? "LentWrapping.kept(" : "LentWrapping.driver(");
            // pgjdbc's first update call (or moveToInsertRow) looks the table's key up with SQL of its own:
            // the handle's statement hook first, as for updateRow (LogicalResultSet#driverSql)
            String hook = m.getName().startsWith("update") || m.getName().equals("moveToInsertRow") ? "driverSql();\n            " : "";
            out.touching(m, r == Statement.class ? "return statement();"
                    : hook + (r == void.class ? "" : "return ") + lent(m, call) + ";");
        }
        out.write(dir);
    }

    /** Metadata binds for each call, as the connection does: it must never outlive its binding. */
    private static void writeMetaData(Path dir) throws IOException {
        JdbcMethods out = leaf("DelegatingDatabaseMetaData", "LogicalDatabaseMetaData", DatabaseMetaData.class);
        out.constructor("LogicalConnection owner", "super(owner);");
        for (Method m : JdbcMethods.of(DatabaseMetaData.class)) {
            String sig = JdbcMethods.signature(m);
            if (sig.startsWith("unwrap[")) {
                continue; // hand-written: the driver's own metadata object is exposed
            }
            Class<?> r = m.getReturnType();
            if (r == Connection.class) {
                out.method(m, "return connection();");
                continue;
            }
            String call = "meta()." + JdbcMethods.call(m);
            String onError = JdbcMethods.throwsSql(m) ? "throw error(e);"
                    : "throw new IllegalStateException(\"no connection to ask the driver\", error(e));";
            out.method(m, JdbcMethods.bound(r == ResultSet.class ? "wrap(" + call + ")" : call, r, onError));
        }
        out.write(dir);
    }

    /**
     * A driver object lent out (LentObject): each call is a run of the handle and checks that the
     * binding it was made under still holds; streams are checked the same way (LentStreams); lent objects passed back in go
     * in as the driver's; {@code free()} does nothing once the binding ended.
     */
    private static void writeLent(Path dir, String name, Class<?> iface) throws IOException {
        JdbcMethods out = new JdbcMethods(PACKAGE, name, "final class " + name + " extends LentObject<"
                + iface.getName() + "> implements " + iface.getName(), "DelegateGenerator");
        out.constructor(iface.getName() + " delegate, LogicalConnection handle, " + PHYSICAL + "PhysicalConnection physical, long binding",
                "super(delegate, handle, physical, binding, \"" + iface.getSimpleName() + "\");");
        for (Method m : JdbcMethods.of(iface)) {
            String sig = JdbcMethods.signature(m);
            if (sig.startsWith("unwrap[") || sig.startsWith("isWrapperFor[")) {
                continue; // LentObject's
            }
            if (!JdbcMethods.throwsSql(m)) {
                throw new IllegalStateException("decide by hand, in LentObject: " + m);
            }
            if (sig.equals("free[]")) {
                out.method(m, "freeIfLive(delegate::free);");
                continue;
            }
            Class<?> r = m.getReturnType();
            String call = "delegate." + driverCall(m);
            if (r == java.io.InputStream.class) {
                call = "LentStreams.in(this, " + call + ")";
            } else if (r == java.io.OutputStream.class) {
                call = "LentStreams.out(this, " + call + ")";
            } else if (r == java.io.Reader.class) {
                call = "LentStreams.reader(this, " + call + ")";
            } else if (r == java.io.Writer.class) {
                call = "LentStreams.writer(this, " + call + ")";
            }
            // A run of the handle from before the check to after the call (LentObject.enter): a release
            // or reclaim on another thread waits for it, or the call sees the binding gone.
            out.method(m, "LogicalConnection run = enter();\n        try {\n            " + (r == void.class ? "" : "return ")
                    + call + ";\n        } catch (java.sql.SQLException e) {\n            throw error(e);\n        } finally {\n"
                    + "            leave(run);\n        }");
        }
        out.write(dir);
    }

    /**
     * {@code name(arg, ...)}, each argument that may be one of the pool's lent objects (a LOB,
     * array, SQLXML, struct, ref, or any Object) passed through {@code LentWrapping.driver}: the driver
     * binds its own objects, not ours.
     */
    private static String driverCall(Method m) {
        return driverCall(m, "LentWrapping.driver(");
    }

    private static String driverCall(Method m, String through) {
        java.lang.reflect.Parameter[] ps = m.getParameters();
        StringBuilder b = new StringBuilder(m.getName()).append('(');
        for (int i = 0; i < ps.length; i++) {
            Class<?> t = ps[i].getType();
            boolean lent = t == Object.class || PINNING.contains(t) && t != java.sql.ResultSetMetaData.class
                    && t != java.sql.ParameterMetaData.class;
            b.append(i == 0 ? "" : ", ").append(lent ? through + ps[i].getName() + ")" : ps[i].getName());
        }
        return b.append(')').toString();
    }

    private static JdbcMethods leaf(String name, String superclass, Class<?> iface) {
        return new JdbcMethods(PACKAGE, name, "final class " + name + " extends " + superclass
                + " implements " + iface.getName(), "DelegateGenerator");
    }

    /**
     * A getter's result, through {@code live()} where it may be a driver object that still talks to
     * the connection: a LOB, array, struct or ref, or whatever {@code getObject} returns (pgjdbc's
     * arrays, a refcursor's result set).
     */
    private static String lent(Method m, String call) {
        Class<?>[] ps = m.getParameterTypes();
        if (m.getName().equals("getObject") && ps.length == 2 && ps[1] == Class.class) {
            return "liveAs(" + call + ", " + m.getParameters()[1].getName() + ")"; // it may ask for a driver class
        }
        return PINNING.contains(m.getReturnType()) || m.getName().equals("getObject") ? "live(" + call + ")" : call;
    }

    /** execute*, executeQuery/Update/LargeUpdate/Batch and addBatch(String): they run SQL. */
    private static boolean runsSql(Method m) {
        String n = m.getName();
        boolean sqlFirst = m.getParameterCount() > 0 && m.getParameterTypes()[0] == String.class;
        return (n.startsWith("execute") && (sqlFirst || m.getParameterCount() == 0))
                || (n.equals("addBatch") && sqlFirst);
    }
}
