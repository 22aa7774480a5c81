package dev.loompool.jdbc.fuzz;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Set;

/**
 * What one step did: its values (masked where the SQL reads something that differs between two
 * sessions, such as a sequence or the clock) or its SQLState class; and, when the pool refused
 * with one of its documented errors, that refusal (README: error table and known limits).
 *
 * @param result what is compared between the pool and the plain driver
 * @param refusal the pool's documented refusal ("55000 …"), or null
 * @param message the error's first line, for the report only
 */
record Outcome(String result, String refusal, String message) {

    /**
     * The pool's own refusals the README documents: 55000 (a per-statement value read on another
     * binding), HY010 (an object used after its handle let go of the connection, a closed statement
     * or result set), 08003 (the session the handle relied on is gone, the handle is closed).
     */
    private static final Set<String> DOCUMENTED = Set.of("55000", "HY010", "08003");

    static Outcome ok(String result) {
        return new Outcome(result, null, null);
    }

    static Outcome of(Throwable t) {
        String first = t.getMessage() == null ? "" : t.getMessage().lines().findFirst().orElse("");
        if (t instanceof SQLException e) {
            String state = e.getSQLState();
            String result = "error " + (state == null || state.length() < 2 ? "null" : state.substring(0, 2));
            if (e instanceof BatchUpdateException b) {
                result += " counts " + Arrays.toString(b.getUpdateCounts());
            }
            boolean ours = e.getStackTrace().length > 0 && e.getStackTrace()[0].getClassName().startsWith("dev.loompool.");
            return new Outcome(result, ours && DOCUMENTED.contains(state) ? state + " " + first : null, state + " " + first);
        }
        return new Outcome("threw " + t.getClass().getSimpleName(), null, first);
    }

    /**
     * Whether the pool's outcome ({@code this}) is the plain driver's. The getters' answers are
     * compared one by one, and one the driver could not give (pgjdbc asks the server, which
     * refuses in a failed transaction) is not compared: the pool answers from the handle's memory.
     */
    boolean agrees(Outcome plain) {
        if (result.equals(plain.result)) {
            return true;
        }
        if (!result.startsWith("getters: ") || !plain.result.startsWith("getters: ")) {
            return false;
        }
        String[] mine = result.substring("getters: ".length()).split(", ");
        String[] theirs = plain.result.substring("getters: ".length()).split(", ");
        for (int i = 0; i < mine.length; i++) {
            if (!mine[i].equals(theirs[i]) && !mine[i].startsWith("error ") && !theirs[i].startsWith("error ")) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return result + (message == null ? "" : "  (" + message + ")");
    }
}
