package dev.loompool.jdbc.internal.driver;

import java.lang.reflect.Modifier;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A copy of an exception with the secrets masked out of its message and out of every exception it
 * leads to: its cause, its suppressed exceptions and, for an SQLException, its next exceptions.
 * Exceptions cannot be edited, so each one that shows a secret, or leads to one that does, is
 * copied; the others are shared with the original.
 *
 * <p>A copy keeps the class where a public constructor of it ({@code (String)}, or for an
 * SQLException {@code (String reason, String SQLState, int vendorCode)}) gives back an exception
 * with that message, SQLState and vendor code; else it is of the nearest superclass that does. So
 * an SQLException stays an SQLException with its SQLState and vendor code (the broken-connection
 * rules read them), a RuntimeException a RuntimeException, an Error an Error. Stack traces are kept.
 */
final class MaskedCopy {

    private final Secrets secrets;
    /** The exceptions to copy: those that show a secret, and those that lead to one. */
    private final Set<Throwable> revealing;
    private final Map<Throwable, Throwable> copies = new IdentityHashMap<>();
    private final Set<Throwable> copying = Collections.newSetFromMap(new IdentityHashMap<>());

    private MaskedCopy(Secrets secrets, Set<Throwable> revealing) {
        this.secrets = secrets;
        this.revealing = revealing;
    }

    /** {@code t} itself if nothing reachable from it shows a secret, else its masked copy. */
    static Throwable of(Throwable t, Secrets secrets) {
        if (t == null || secrets.isEmpty()) {
            return t;
        }
        try {
            Set<Throwable> revealing = revealing(t, secrets);
            return revealing.isEmpty() ? t : new MaskedCopy(secrets, revealing).copy(t);
        } catch (RuntimeException | StackOverflowError e) {
            return withheld(t); // a pathological exception: better no message than the secret
        }
    }

    /**
     * A new exception of {@code e}'s kind (as a masked copy is) with {@code message}, {@code e}'s
     * SQLState and vendor code, and {@code e} itself as its cause.
     */
    static SQLException relabeled(SQLException e, String message, Secrets secrets) {
        return (SQLException) new MaskedCopy(secrets, Set.of()).sameKind(e, message, e);
    }

    /** The exceptions reachable from {@code root} that show a secret or lead to one that does. */
    private static Set<Throwable> revealing(Throwable root, Secrets secrets) {
        Map<Throwable, List<Throwable>> parents = new IdentityHashMap<>();
        Deque<Throwable> todo = new ArrayDeque<>();
        Deque<Throwable> found = new ArrayDeque<>();
        parents.put(root, new ArrayList<>(1));
        todo.add(root);
        while (!todo.isEmpty()) {
            Throwable x = todo.poll();
            if (shows(x, secrets)) {
                found.add(x);
            }
            for (Throwable child : children(x)) {
                List<Throwable> of = parents.get(child);
                if (of == null) {
                    parents.put(child, of = new ArrayList<>(1));
                    todo.add(child);
                }
                of.add(x);
            }
        }
        Set<Throwable> revealing = Collections.newSetFromMap(new IdentityHashMap<>());
        while (!found.isEmpty()) {
            Throwable x = found.poll();
            if (revealing.add(x)) {
                found.addAll(parents.get(x));
            }
        }
        return revealing;
    }

    private static boolean shows(Throwable x, Secrets secrets) {
        return secrets.revealedIn(x.getMessage()) || secrets.revealedIn(x.getLocalizedMessage())
                || secrets.revealedIn(x.toString());
    }

    private static List<Throwable> children(Throwable x) {
        List<Throwable> children = new ArrayList<>(2);
        if (x.getCause() != null) {
            children.add(x.getCause());
        }
        Collections.addAll(children, x.getSuppressed());
        if (x instanceof SQLException s && s.getNextException() != null) {
            children.add(s.getNextException());
        }
        return children;
    }

    private Throwable copy(Throwable x) {
        Throwable done = copies.get(x);
        if (done != null || !revealing.contains(x)) {
            return done != null ? done : x;
        }
        if (copying.contains(x)) {
            return null; // a cycle of causes: cut here
        }
        Throwable c = copyOne(x);
        if (x instanceof SQLException sx) {
            copyNextExceptions(sx, (SQLException) c);
        }
        return c;
    }

    /** Copies {@code x} with its cause and suppressed exceptions, not its next exceptions. */
    private Throwable copyOne(Throwable x) {
        copying.add(x);
        Throwable cause = x.getCause() == null ? null : copy(x.getCause());
        Throwable c = sameKind(x, secrets.mask(x.getMessage()), cause);
        c.setStackTrace(x.getStackTrace());
        copies.put(x, c);
        copying.remove(x);
        for (Throwable s : x.getSuppressed()) {
            Throwable masked = copy(s);
            if (masked != null && masked != c) {
                c.addSuppressed(masked);
            }
        }
        return c;
    }

    /** Copies the chain after {@code x} onto {@code c} in a loop, not by recursion: batch failures chain thousands. */
    private void copyNextExceptions(SQLException x, SQLException c) {
        SQLException last = c;
        for (SQLException next = x.getNextException(); next != null; next = next.getNextException()) {
            Throwable done = copies.get(next);
            if (done != null || !revealing.contains(next)) { // the rest of the chain comes with it
                if (done != last) {
                    last.setNextException((SQLException) (done != null ? done : next));
                }
                return;
            }
            if (copying.contains(next)) {
                return;
            }
            SQLException copied = (SQLException) copyOne(next);
            last.setNextException(copied);
            last = copied;
        }
    }

    /** A new exception of {@code x}'s class, or of its nearest superclass that keeps what callers read. */
    private Throwable sameKind(Throwable x, String message, Throwable cause) {
        for (Class<?> type = x.getClass(); type != null; type = type.getSuperclass()) {
            Throwable c = construct(type, x, message, cause);
            if (c != null) {
                return c;
            }
        }
        throw new IllegalStateException("java.lang.Throwable(String) failed"); // cannot happen
    }

    private Throwable construct(Class<?> type, Throwable x, String message, Throwable cause) {
        if (!Modifier.isPublic(type.getModifiers()) || Modifier.isAbstract(type.getModifiers())) {
            return null;
        }
        try {
            Throwable c;
            if (x instanceof SQLException sx) {
                SQLException s = (SQLException) type.getConstructor(String.class, String.class, int.class)
                        .newInstance(message, sx.getSQLState(), sx.getErrorCode());
                if (!Objects.equals(s.getSQLState(), sx.getSQLState()) || s.getErrorCode() != sx.getErrorCode()
                        || s.getNextException() != null) {
                    return null;
                }
                c = s;
            } else {
                c = (Throwable) type.getConstructor(String.class).newInstance(message);
            }
            // A class may make up its own message or cause: then it cannot carry the masked one.
            if (!Objects.equals(c.getMessage(), message) || c.getCause() != null || secrets.revealedIn(c.toString())) {
                return null;
            }
            if (cause != null) {
                c.initCause(cause);
            }
            return c;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** Only the kind and the SQLState, for an exception whose graph could not be walked. */
    private static Throwable withheld(Throwable t) {
        String message = t.getClass().getName() + " (its message is withheld: it could show a password)";
        if (t instanceof SQLException s) {
            return new SQLException(message, s.getSQLState(), s.getErrorCode());
        }
        if (t instanceof RuntimeException) {
            return new RuntimeException(message);
        }
        return t instanceof Error ? new Error(message) : new Exception(message);
    }
}
