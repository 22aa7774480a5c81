package dev.loompool.jdbc.fuzz;

import java.util.List;

/**
 * One thing borrower A does on its handle: a JDBC call, or SQL through one kind of statement.
 * {@code sql} may name {@code {t}} (the run's own table) and {@code {p}} (the target's objects);
 * a batch's texts are separated by {@link #BATCH_SEPARATOR}; {@code a} and {@code b} are the
 * step's numbers (a value, a slot, a count). {@code known} names the known finding this step is
 * the trigger of, or is null.
 */
record Step(Kind kind, String sql, int a, int b, Known known) {

    static final String BATCH_SEPARATOR = "\u001e";

    enum Kind {
        SET_AUTOCOMMIT, COMMIT, ROLLBACK, SAVEPOINT, RELEASE_SAVEPOINT, ROLLBACK_TO_SAVEPOINT, SET_READ_ONLY,
        SET_ISOLATION, SET_CATALOG, SET_SCHEMA, GETTERS, WARNINGS, PIN, UNPIN,
        /** Statement.execute, every result read, closed at once. */
        EXECUTE,
        /** prepareStatement with {@code ?i} / {@code ?s} parameters (a, "p" + a), executed b times, closed. */
        PREPARED,
        /** prepareCall: a {@code {call}} template with its parameters, or a text; closed. */
        CALL,
        /** Statement.addBatch of each text, executeBatch, closed. */
        BATCH,
        /** INSERT … (?, ?) for b rows from id a, as one PreparedStatement batch, closed. */
        PREPARED_BATCH,
        /** executeUpdate with RETURN_GENERATED_KEYS, then the keys read; closed. */
        GENERATED_KEYS,
        /** A statement left open (fetch size a, max rows b), its first row read: it stays for later steps. */
        OPEN,
        /** The same through prepareStatement. */
        OPEN_PREPARED,
        /** b more rows of the result set in open slot a. */
        NEXT,
        CLOSE_RESULT,
        CLOSE_STATEMENT,
        /** pgjdbc: a parameter typed by name (PGobject, createArrayOf), whose oid pgjdbc caches by name. */
        TYPED
    }

    Step(Kind kind, String sql, int a, int b) {
        this(kind, sql, a, b, null);
    }

    static Step call(Kind kind) {
        return new Step(kind, null, 0, 0, null);
    }

    Step known(Known k) {
        return new Step(kind, sql, a, b, k);
    }

    List<String> batch() {
        return List.of(sql.split(BATCH_SEPARATOR));
    }

    /** The step as a line of Java, to read in a report and to paste into a counterexample. */
    String code() {
        return switch (kind) {
            case SET_AUTOCOMMIT -> "a.setAutoCommit(" + (a != 0) + ")";
            case COMMIT -> "a.commit()";
            case ROLLBACK -> "a.rollback()";
            case SAVEPOINT -> a == 0 ? "savepoints.add(a.setSavepoint())" : "savepoints.add(a.setSavepoint(\"sp" + a + "\"))";
            case RELEASE_SAVEPOINT -> "a.releaseSavepoint(savepoints[" + a + "])";
            case ROLLBACK_TO_SAVEPOINT -> "a.rollback(savepoints[" + a + "])";
            case SET_READ_ONLY -> "a.setReadOnly(" + (a != 0) + ")";
            case SET_ISOLATION -> "a.setTransactionIsolation(" + a + ")";
            case SET_CATALOG -> "a.setCatalog(\"" + sql + "\")";
            case SET_SCHEMA -> "a.setSchema(\"" + sql + "\")";
            case GETTERS -> "read a.getAutoCommit(), getTransactionIsolation(), isReadOnly(), getCatalog(), getSchema()";
            case WARNINGS -> "read a.getWarnings(); a.clearWarnings()";
            case PIN -> "a.unwrap(LoomConnection.class).pin()";
            case UNPIN -> "a.unwrap(LoomConnection.class).unpin()";
            case EXECUTE -> "a.createStatement().execute(\"" + java(sql) + "\") and close";
            case PREPARED -> "a.prepareStatement(\"" + java(sql) + "\") with " + a + ", executed " + b + "x, closed";
            case CALL -> "a.prepareCall(\"" + java(sql) + "\") with " + a + ", executed, closed";
            case BATCH -> "a.createStatement() batch of " + batch().stream().map(s -> "\"" + java(s) + "\"").toList() + ", closed";
            case PREPARED_BATCH -> "a.prepareStatement(\"" + java(sql) + "\") batch of " + b + " rows from id " + a + ", closed";
            case GENERATED_KEYS -> "a.createStatement().executeUpdate(\"" + java(sql) + "\", RETURN_GENERATED_KEYS), keys read, closed";
            case OPEN -> "slots.add(a.createStatement() fetchSize " + a + " maxRows " + b + " executeQuery(\"" + java(sql)
                    + "\")), first row read, left open";
            case OPEN_PREPARED -> "slots.add(a.prepareStatement(\"" + java(sql) + "\") fetchSize " + a + " maxRows " + b
                    + "), first row read, left open";
            case NEXT -> "slots[" + a + "]: " + b + " more rows";
            case CLOSE_RESULT -> "slots[" + a + "].resultSet.close()";
            case CLOSE_STATEMENT -> "slots[" + a + "].statement.close()";
            case TYPED -> "a.prepareStatement(\"" + java(sql) + "\") with a parameter typed by name (variant " + a + ")";
        } + (known == null ? "" : "   // known: " + known);
    }

    static String java(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
