import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Writes the plain delegating JDBC wrappers of dev.loompool.jdbc at build time (DESIGN.md §4,
 * "Wrappers"): one abstract class per interface, whose every method forwards to the driver's
 * object, passes a SQLException through one hook (broken-connection detection) and routes the
 * objects that would leak a physical connection (result sets, the connection, the statement)
 * through hooks. Every method of a statement or result set first calls {@code touch()}: its thread
 * becomes the handle's user, which owner-exit reclaim relies on (DESIGN.md §4, "Coroutine end");
 * the connection and metadata get the same from their bind. The hand-written subclasses override
 * only what loompool changes. No reflection is left at run time. Run with the JDK's source
 * launcher: java DelegateGenerator.java OUTPUT_DIR
 */
public final class DelegateGenerator {

    private static final String PACKAGE = "dev.loompool.jdbc";
    /** Objects that live on the physical connection that made them. */
    private static final Set<Class<?>> PINNING = Set.of(java.sql.Blob.class, java.sql.Clob.class,
            java.sql.NClob.class, java.sql.SQLXML.class, java.sql.Array.class, java.sql.Struct.class);

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0], PACKAGE.split("\\."));
        Files.createDirectories(dir);
        write(dir, "DelegatingStatement", Statement.class, null, "S extends java.sql.Statement");
        write(dir, "DelegatingPreparedStatement", PreparedStatement.class, Statement.class,
                "S extends java.sql.PreparedStatement");
        write(dir, "DelegatingCallableStatement", CallableStatement.class, PreparedStatement.class,
                "S extends java.sql.CallableStatement");
        write(dir, "DelegatingResultSet", ResultSet.class, null, null);
        writeConnection(dir);
        writeMetaData(dir);
    }

    private static void write(Path dir, String name, Class<?> iface, Class<?> parent, String typeParam)
            throws IOException {
        String delegateType = typeParam != null ? "S" : iface.getName();
        StringBuilder out = header(name);
        // Each statement level extends the hand-written logical class of the level above, so the
        // statement logic is written once: DelegatingStatement <- LogicalStatement <-
        // DelegatingPreparedStatement <- LogicalPreparedStatement <- DelegatingCallableStatement.
        String parentName = parent == null ? null : "Logical" + parent.getSimpleName();
        out.append("abstract class ").append(name).append(typeParam != null ? "<" + typeParam + ">" : "");
        if (parentName != null) {
            out.append(" extends ").append(parentName).append("<S>");
        }
        out.append(" implements ").append(iface.getName()).append(" {\n\n");
        if (parentName == null) {
            out.append("    protected final ").append(delegateType).append(" delegate;\n\n");
            out.append("    ").append(name).append("(").append(delegateType).append(" delegate) {\n")
                    .append("        this.delegate = delegate;\n    }\n\n");
            out.append("    /** Every SQLException from the driver passes here; returns what to throw. */\n")
                    .append("    abstract java.sql.SQLException error(java.sql.SQLException e);\n\n")
                    .append("    /** Before every call: its thread becomes the handle's user; throws if the handle was reclaimed. */\n")
                    .append("    abstract void touch() throws java.sql.SQLException;\n\n");
            if (iface != ResultSet.class) {
                out.append("    /** Wraps a driver result set so that it never escapes unwrapped. */\n")
                        .append("    abstract java.sql.ResultSet wrap(java.sql.ResultSet rs) throws java.sql.SQLException;\n\n")
                        .append("    /** The logical connection this object belongs to. */\n")
                        .append("    abstract java.sql.Connection connection();\n\n");
            } else {
                out.append("    /** The logical statement this result set belongs to, or null. */\n")
                        .append("    abstract java.sql.Statement statement();\n\n");
            }
        } else {
            out.append("    ").append(name).append("(LogicalConnection owner, S delegate, SqlEffect effect) {\n")
                    .append("        super(owner, delegate, effect);\n    }\n\n");
        }
        boolean isStatement = Statement.class.isAssignableFrom(iface);
        if (isStatement && parent == null) {
            out.append("    /** Before SQL text runs: returns what it does to the pins (and applies what must come first). */\n")
                    .append("    abstract SqlEffect sqlBefore(String sql) throws java.sql.SQLException;\n\n")
                    .append("    /** Before a prepared statement runs, or a batch. */\n")
                    .append("    abstract SqlEffect sqlBefore() throws java.sql.SQLException;\n\n")
                    .append("    /** After the SQL succeeded. */\n")
                    .append("    abstract void sqlAfter(SqlEffect effect);\n\n");
        }
        Set<String> inherited = parent == null ? Set.of() : signatures(parent);
        for (Method m : methods(iface)) {
            if (inherited.contains(signature(m))) {
                continue;
            }
            String call = "delegate." + m.getName() + "(" + argNames(m) + ")";
            Class<?> r = m.getReturnType();
            String body;
            if (isStatement && runsSql(m)) {
                // SQL hooks: what the SQL does to the handle's pins, before and after it runs.
                String before = m.getParameterCount() > 0
                        ? "SqlEffect effect = sqlBefore(" + m.getParameters()[0].getName() + ");"
                        : "SqlEffect effect = sqlBefore();";
                String result = r == ResultSet.class ? "wrap(" + call + ")" : call;
                // A batched COMMIT has not run yet when it is added: only the BEGIN side applies.
                String after = m.getName().equals("addBatch") ? "" : "\n            sqlAfter(effect);";
                body = before + "\n            "
                        + (r == void.class ? result + ";" : r.getTypeName() + " result = " + result + ";")
                        + after
                        + (r == void.class ? "" : "\n            return result;");
            } else if (r == void.class) {
                body = call + ";";
            } else if (r == ResultSet.class && iface != ResultSet.class) {
                body = "return wrap(" + call + ");";
            } else if (r == Connection.class) {
                body = "return connection();";
            } else if (r == Statement.class && iface == ResultSet.class) {
                body = "return statement();";
            } else {
                body = "return " + call + ";";
            }
            appendMethod(out, m, body, true);
        }
        out.append("}\n");
        Files.writeString(dir.resolve(name + ".java"), out);
    }

    /**
     * The connection base: each method binds a physical connection, calls it, and reports the call
     * done so that the handle can release what nothing pins. Methods that cannot throw a plain
     * SQLException are left abstract for the hand-written handle.
     */
    private static void writeConnection(Path dir) throws IOException {
        StringBuilder out = header("BindingConnection");
        out.append("abstract class BindingConnection implements java.sql.Connection {\n\n");
        bindingHooks(out, "java.sql.Connection bind()", "The physical connection, bound now if it was not.");
        out.append("    /** Tracks a new statement (it pins until closed) and wraps it. */\n")
                .append("    abstract java.sql.Statement wrapStatement(java.sql.Statement s) throws java.sql.SQLException;\n\n")
                .append("    abstract java.sql.PreparedStatement wrapPrepared(java.sql.PreparedStatement s, String sql) throws java.sql.SQLException;\n\n")
                .append("    abstract java.sql.CallableStatement wrapCallable(java.sql.CallableStatement s, String sql) throws java.sql.SQLException;\n\n")
                .append("    abstract java.sql.DatabaseMetaData wrapMetaData(java.sql.DatabaseMetaData m);\n\n")
                .append("    /** A LOB or array belongs to its physical connection: pin, and return it. */\n")
                .append("    abstract <T> T pinned(T value);\n\n");
        for (Method m : methods(Connection.class)) {
            if (!Arrays.asList(m.getExceptionTypes()).contains(SQLException.class)) {
                continue;
            }
            String call = "bind()." + m.getName() + "(" + argNames(m) + ")";
            Class<?> r = m.getReturnType();
            String firstArg = m.getParameterCount() > 0 ? ", " + m.getParameters()[0].getName() : ", null";
            if (r == Statement.class) {
                call = "wrapStatement(" + call + ")";
            } else if (r == PreparedStatement.class) {
                call = "wrapPrepared(" + call + firstArg + ")";
            } else if (r == CallableStatement.class) {
                call = "wrapCallable(" + call + firstArg + ")";
            } else if (r == DatabaseMetaData.class) {
                call = "wrapMetaData(" + call + ")";
            } else if (PINNING.contains(r)) {
                call = "pinned(" + call + ")";
            }
            appendMethod(out, m, bound(call, r), false);
        }
        out.append("}\n");
        Files.writeString(dir.resolve("BindingConnection.java"), out);
    }

    /**
     * Metadata binds for each call, as the connection does: a metadata object kept across
     * statements must never reach into a physical connection that went back to the pool.
     */
    private static void writeMetaData(Path dir) throws IOException {
        StringBuilder out = header("BindingDatabaseMetaData");
        out.append("abstract class BindingDatabaseMetaData implements java.sql.DatabaseMetaData {\n\n");
        bindingHooks(out, "java.sql.DatabaseMetaData meta()", "The driver's metadata of the handle's physical connection, bound now if it was not.");
        out.append("    /** Wraps and tracks a driver result set: it pins until closed. */\n")
                .append("    abstract java.sql.ResultSet wrap(java.sql.ResultSet rs) throws java.sql.SQLException;\n\n")
                .append("    /** The logical connection this metadata belongs to; the caller becomes its user. */\n")
                .append("    abstract java.sql.Connection connection() throws java.sql.SQLException;\n\n");
        for (Method m : methods(DatabaseMetaData.class)) {
            Class<?> r = m.getReturnType();
            if (r == Connection.class) {
                appendMethod(out, m, "return connection();", false);
                continue;
            }
            String call = "meta()." + m.getName() + "(" + argNames(m) + ")";
            String body = bound(r == ResultSet.class ? "wrap(" + call + ")" : call, r);
            if (!Arrays.asList(m.getExceptionTypes()).contains(SQLException.class)) { // the driver's version numbers
                body = body.replace("} finally {", "} catch (java.sql.SQLException e) {\n            "
                        + "throw new IllegalStateException(\"no connection to ask the driver\", error(e));\n        } finally {");
            }
            appendMethod(out, m, body, false);
        }
        out.append("}\n");
        Files.writeString(dir.resolve("BindingDatabaseMetaData.java"), out);
    }

    /** The hooks of a class whose every call binds: the bound object, done, and the error hook. */
    private static void bindingHooks(StringBuilder out, String boundGetter, String doc) {
        out.append("    /** ").append(doc).append(" */\n")
                .append("    abstract ").append(boundGetter).append(" throws java.sql.SQLException;\n\n")
                .append("    /** After every bound call: the handle releases the physical connection if nothing pins it. */\n")
                .append("    abstract void done();\n\n")
                .append("    /** Every SQLException from the driver passes here; returns what to throw. */\n")
                .append("    abstract java.sql.SQLException error(java.sql.SQLException e);\n\n");
    }

    /** A call made on a bound connection, reported done after, whatever happens. */
    private static String bound(String call, Class<?> r) {
        return "try {\n            " + (r == void.class ? "" : "return ") + call
                + ";\n        } finally {\n            done();\n        }";
    }

    private static StringBuilder header(String name) {
        return new StringBuilder("// Generated by pool-core/src/build/DelegateGenerator.java at build time. Do not edit.\n")
                .append("package ").append(PACKAGE).append(";\n\n")
                .append("@javax.annotation.processing.Generated(\"DelegateGenerator\")\n")
                .append("@SuppressWarnings({\"deprecation\", \"unchecked\", \"rawtypes\"})\n");
    }

    /** {@code touch}: the method first calls the touch() hook, outside the driver's error handling. */
    private static void appendMethod(StringBuilder out, Method m, String body, boolean touch) {
        // Only calls into the driver can throw; bodies that return a hook's object cannot.
        boolean throwsSql = Arrays.asList(m.getExceptionTypes()).contains(SQLException.class)
                && (body.contains("delegate.") || body.contains("bind().") || body.contains("meta()."));
        out.append("    @Override\n    public ");
        TypeVariable<Method>[] vars = m.getTypeParameters();
        if (vars.length > 0) {
            out.append("<").append(Arrays.stream(vars).map(TypeVariable::getName).collect(Collectors.joining(", ")))
                    .append("> ");
        }
        out.append(m.getGenericReturnType().getTypeName()).append(" ").append(m.getName()).append("(");
        Type[] types = m.getGenericParameterTypes();
        Parameter[] params = m.getParameters();
        for (int i = 0; i < types.length; i++) {
            out.append(i == 0 ? "" : ", ").append(types[i].getTypeName()).append(" ").append(params[i].getName());
        }
        out.append(")");
        if (m.getExceptionTypes().length > 0) {
            out.append(" throws ").append(Arrays.stream(m.getExceptionTypes()).map(Class::getName)
                    .collect(Collectors.joining(", ")));
        }
        out.append(" {\n");
        if (touch && Arrays.asList(m.getExceptionTypes()).contains(SQLException.class)) {
            out.append("        touch();\n");
        }
        if (throwsSql && !body.startsWith("try")) {
            out.append("        try {\n            ").append(body)
                    .append("\n        } catch (java.sql.SQLException e) {\n            throw error(e);\n        }\n");
        } else if (throwsSql) {
            out.append("        ").append(body.replace("} finally {", "} catch (java.sql.SQLException e) {\n            throw error(e);\n        } finally {")).append("\n");
        } else {
            out.append("        ").append(body).append("\n");
        }
        out.append("    }\n\n");
    }

    /** execute*, executeQuery/Update/LargeUpdate/Batch and addBatch(String): they run SQL. */
    private static boolean runsSql(Method m) {
        String n = m.getName();
        boolean sqlFirst = m.getParameterCount() > 0 && m.getParameterTypes()[0] == String.class;
        return (n.startsWith("execute") && (sqlFirst || m.getParameterCount() == 0))
                || (n.equals("addBatch") && sqlFirst);
    }

    private static String argNames(Method m) {
        return Arrays.stream(m.getParameters()).map(Parameter::getName).collect(Collectors.joining(", "));
    }

    /** Public instance methods, inherited ones included, in a stable order. */
    private static Method[] methods(Class<?> iface) {
        return Arrays.stream(iface.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .sorted(Comparator.comparing(DelegateGenerator::signature))
                .toArray(Method[]::new);
    }

    private static Set<String> signatures(Class<?> iface) {
        return Arrays.stream(methods(iface)).map(DelegateGenerator::signature).collect(Collectors.toCollection(HashSet::new));
    }

    private static String signature(Method m) {
        return m.getName() + Arrays.toString(m.getParameterTypes());
    }
}
