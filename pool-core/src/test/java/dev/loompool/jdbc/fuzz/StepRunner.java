package dev.loompool.jdbc.fuzz;

import dev.loompool.jdbc.LoomConnection;
import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.util.PGobject;

/**
 * Runs borrower A's steps on one connection, a pool's handle or a plain connection alike, and
 * says what each did. It keeps what outlives a step: the statements left open (slots) and the
 * savepoints, by index, so that both runs refer to the same ones.
 */
final class StepRunner {

    /** SQL whose values differ between two sessions or two moments: only their shape is compared. */
    private static final Pattern VOLATILE = Pattern.compile("(?i)now\\s*\\(|current_timestamp|clock_timestamp|timeofday"
            + "|random|uuid|connection_id|backend_pid|nextval|next\\s+value|previous\\s+value|currval|lastval|setval"
            + "|sysdate|get_lock|advisory|txid|xact_id|pseudo_thread|statement_timestamp|explain\\s+analyze");
    private static final Pattern PARAMETER = Pattern.compile("\\?([is])");
    private static final int ROWS = 20;

    private record Slot(Statement statement, ResultSet resultSet, boolean masked) {
    }

    private final SeqTarget target;
    private final String table;
    /** The pool's side of the handle, or null on the plain driver (pin and unpin do nothing there). */
    private final LoomConnection loom;
    private final List<Slot> slots = new ArrayList<>();
    private final List<Savepoint> savepoints = new ArrayList<>();

    StepRunner(SeqTarget target, String table, LoomConnection loom) {
        this.target = target;
        this.table = table;
        this.loom = loom;
    }

    String sql(String text) {
        return text.replace("{t}", table).replace("{p}", target.prefix);
    }

    /** What the step did, with the run's own table named {@code {t}} (it is in values and messages). */
    Outcome run(Connection c, Step step) {
        Outcome o;
        try {
            o = Outcome.ok(execute(c, step));
        } catch (Throwable t) {
            o = Outcome.of(t);
        }
        return new Outcome(o.result().replace(table, "{t}"), o.refusal(), o.message() == null ? null : o.message().replace(table, "{t}"));
    }

    private String execute(Connection c, Step s) throws SQLException {
        switch (s.kind()) {
            case SET_AUTOCOMMIT -> c.setAutoCommit(s.a() != 0);
            case COMMIT -> c.commit();
            case ROLLBACK -> c.rollback();
            case SAVEPOINT -> {
                savepoints.add(null); // the slot is taken whether or not the call succeeds: both runs count alike
                savepoints.set(savepoints.size() - 1, s.a() == 0 ? c.setSavepoint() : c.setSavepoint("sp" + s.a()));
            }
            case RELEASE_SAVEPOINT -> {
                Savepoint sp = savepoint(s.a());
                if (sp == null) {
                    return "no savepoint";
                }
                c.releaseSavepoint(sp);
            }
            case ROLLBACK_TO_SAVEPOINT -> {
                Savepoint sp = savepoint(s.a());
                if (sp == null) {
                    return "no savepoint";
                }
                c.rollback(sp);
            }
            case SET_READ_ONLY -> c.setReadOnly(s.a() != 0);
            case SET_ISOLATION -> c.setTransactionIsolation(s.a());
            case SET_CATALOG -> c.setCatalog(s.sql());
            case SET_SCHEMA -> c.setSchema(s.sql());
            case GETTERS -> {
                return getters(c);
            }
            case WARNINGS -> {
                List<String> states = new ArrayList<>();
                for (SQLWarning w = c.getWarnings(); w != null && states.size() < 10; w = w.getNextWarning()) {
                    states.add(w.getSQLState());
                }
                c.clearWarnings();
                return "warnings " + states;
            }
            case PIN -> {
                if (loom != null) {
                    loom.pin();
                }
            }
            case UNPIN -> {
                if (loom != null) {
                    loom.unpin();
                }
            }
            case EXECUTE -> {
                try (Statement st = c.createStatement()) {
                    return results(st, st.execute(sql(s.sql())), masked(s.sql()));
                }
            }
            case PREPARED -> {
                try (PreparedStatement ps = c.prepareStatement(sql(PARAMETER.matcher(s.sql()).replaceAll("?")))) {
                    StringBuilder out = new StringBuilder();
                    for (int i = 0; i < s.b(); i++) {
                        bind(ps, s.sql(), s.a() + i);
                        out.append(results(ps, ps.execute(), masked(s.sql()))).append(" / ");
                    }
                    return out.toString();
                }
            }
            case CALL -> {
                return call(c, s);
            }
            case BATCH -> {
                try (Statement st = c.createStatement()) {
                    for (String text : s.batch()) {
                        st.addBatch(sql(text));
                    }
                    return "counts " + java.util.Arrays.toString(st.executeBatch());
                }
            }
            case PREPARED_BATCH -> {
                try (PreparedStatement ps = c.prepareStatement(sql(PARAMETER.matcher(s.sql()).replaceAll("?")))) {
                    for (int i = 0; i < s.b(); i++) {
                        bind(ps, s.sql(), s.a() + i);
                        ps.addBatch();
                    }
                    return "counts " + java.util.Arrays.toString(ps.executeBatch());
                }
            }
            case GENERATED_KEYS -> {
                try (Statement st = c.createStatement()) {
                    int n = st.executeUpdate(sql(s.sql()), Statement.RETURN_GENERATED_KEYS);
                    try (ResultSet keys = st.getGeneratedKeys()) {
                        return "count " + n + " keys " + rows(keys, false);
                    }
                }
            }
            case OPEN, OPEN_PREPARED -> {
                return open(c, s);
            }
            case NEXT -> {
                Slot slot = slot(s.a());
                if (slot == null || slot.resultSet() == null) {
                    return "no result set";
                }
                StringBuilder out = new StringBuilder();
                for (int i = 0; i < s.b(); i++) {
                    out.append(slot.resultSet().next() ? row(slot.resultSet(), slot.masked()) : "end").append("; ");
                }
                return out.toString();
            }
            case CLOSE_RESULT -> {
                Slot slot = slot(s.a());
                if (slot == null || slot.resultSet() == null) {
                    return "no result set";
                }
                slot.resultSet().close();
            }
            case CLOSE_STATEMENT -> {
                Slot slot = slot(s.a());
                if (slot == null) {
                    return "no statement";
                }
                slot.statement().close();
            }
            case TYPED -> {
                return typed(c, s);
            }
        }
        return "ok";
    }

    private Savepoint savepoint(int i) {
        return savepoints.isEmpty() ? null : savepoints.get(i % savepoints.size());
    }

    private Slot slot(int i) {
        return slots.isEmpty() ? null : slots.get(i % slots.size());
    }

    private static String getters(Connection c) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            try {
                out.add(switch (i) {
                    case 0 -> "autoCommit " + c.getAutoCommit();
                    case 1 -> "isolation " + c.getTransactionIsolation();
                    case 2 -> "readOnly " + c.isReadOnly();
                    case 3 -> "catalog " + c.getCatalog();
                    default -> "schema " + c.getSchema();
                });
            } catch (Throwable t) {
                out.add(Outcome.of(t).result());
            }
        }
        return "getters: " + String.join(", ", out);
    }

    private void bind(PreparedStatement ps, String template, int value) throws SQLException {
        Matcher m = PARAMETER.matcher(template);
        for (int i = 1; m.find(); i++) {
            if (m.group(1).equals("i")) {
                ps.setInt(i, value);
            } else {
                ps.setString(i, "p" + value);
            }
        }
    }

    private String call(Connection c, Step s) throws SQLException {
        String template = s.sql();
        try (CallableStatement cs = c.prepareCall(sql(template))) {
            boolean returns = template.startsWith("{? =");
            if (returns) {
                cs.registerOutParameter(1, template.contains("upper") || template.contains("setfn") ? Types.VARCHAR : Types.INTEGER);
                if (template.contains("upper") || template.contains("setfn")) {
                    cs.setString(2, "s" + s.a());
                } else {
                    cs.setInt(2, s.a());
                }
            } else if (template.contains("ins(?, ?)")) {
                cs.setString(1, table);
                cs.setInt(2, s.a());
            } else if (template.contains("proc(?, ?)")) {
                cs.setInt(1, s.a());
                cs.registerOutParameter(2, Types.INTEGER);
            } else if (template.contains("setproc(?)")) {
                cs.setInt(1, s.a());
            }
            String out = results(cs, cs.execute(), masked(template));
            if (returns) {
                out += " out " + cs.getString(1);
            } else if (template.contains("proc(?, ?)")) {
                out += " out " + cs.getString(2);
            }
            return out;
        }
    }

    private String open(Connection c, Step s) throws SQLException {
        Statement st = s.kind() == Step.Kind.OPEN ? c.createStatement() : c.prepareStatement(sql(s.sql()));
        slots.add(new Slot(st, null, false));
        st.setFetchSize(s.a());
        st.setMaxRows(s.b());
        boolean isResult = st instanceof PreparedStatement ps ? ps.execute() : st.execute(sql(s.sql()));
        if (!isResult) {
            return "count " + st.getUpdateCount();
        }
        ResultSet rs = st.getResultSet();
        slots.set(slots.size() - 1, new Slot(st, rs, masked(s.sql())));
        return rs.next() ? row(rs, masked(s.sql())) : "end";
    }

    private String typed(Connection c, Step s) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql(s.sql()))) {
            String type = sql("{p}t");
            switch (s.a()) {
                case 0 -> ps.setObject(1, pgObject(type));
                case 1 -> {
                    Array array = c.createArrayOf(type, new Object[] {"a"});
                    ps.setArray(1, array);
                }
                default -> ps.setObject(1, pgObject(sql("{p}s2.{p}t")));
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rows(rs, false);
            }
        }
    }

    static PGobject pgObject(String type) throws SQLException {
        PGobject o = new PGobject();
        o.setType(type);
        o.setValue("a");
        return o;
    }

    private static boolean masked(String sql) {
        return VOLATILE.matcher(sql).find();
    }

    /** Every result of an execute: rows, update counts, until there are no more. */
    static String results(Statement st, boolean isResult, boolean masked) throws SQLException {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            if (isResult) {
                try (ResultSet rs = st.getResultSet()) {
                    out.append(rows(rs, masked)).append("; ");
                }
            } else {
                int n = st.getUpdateCount();
                if (n == -1) {
                    break;
                }
                out.append("count ").append(n).append("; ");
            }
            isResult = st.getMoreResults();
        }
        return out.toString();
    }

    static String rows(ResultSet rs, boolean masked) throws SQLException {
        List<String> rows = new ArrayList<>();
        while (rows.size() < ROWS && rs.next()) {
            rows.add(row(rs, masked));
        }
        return rows.toString();
    }

    private static String row(ResultSet rs, boolean masked) throws SQLException {
        StringBuilder out = new StringBuilder("(");
        int n = rs.getMetaData().getColumnCount();
        for (int i = 1; i <= n; i++) {
            String v = rs.getString(i);
            out.append(i > 1 ? "|" : "").append(masked ? "?" : v == null ? "null" : v.length() > 100 ? v.substring(0, 100) : v);
        }
        return out.append(')').toString();
    }
}
