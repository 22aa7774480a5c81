package dev.loompool.jdbc.internal.driver;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The passwords a pool knows, and how to keep them out of what it throws and logs: the password in
 * the JDBC URL (see {@link JdbcUrls#passwords}), the value of every password-like driver property
 * ({@code password}, {@code sslpassword}, {@code keyStorePassword}…), and the password of the
 * credentials. Drivers echo them (a host or a port they could not read, a URL in a message), and
 * exceptions cannot be edited, so a failure that reveals one is replaced by a masked copy
 * ({@link MaskedCopy}).
 *
 * <p>The rule: every non-empty secret is replaced by {@code ****} wherever it appears, except that
 * one shorter than {@value #ANYWHERE} characters is replaced only where it stands alone, not inside
 * a longer word or number, so that a password such as {@code 1} does not shred every port number.
 * So is every piece of a secret between the characters that delimit the parts of a URL or a list
 * ({@value #DELIMITERS}), and every run of such pieces, if it has {@value #ANYWHERE} characters or
 * more: a driver that cuts a URL there echoes a piece ({@code Incorrect port value : s3cret} of
 * {@code root:s3cret/PW@host}).
 *
 * <p>Built only when something failed: the connect path and the hot path never pay for it.
 */
public final class Secrets {

    static final String MASK = "****";
    /** Secrets at least this long are masked wherever they appear; shorter ones only standing alone. */
    private static final int ANYWHERE = 4;
    /**
     * Where drivers cut a URL, its host list or its parameters, and so a password in it. A piece of
     * a secret is masked only from {@value #ANYWHERE} characters on: a shorter one gives away little
     * of the password, and masking it would strike the words and numbers that every message holds
     * ({@code a}, {@code to}, {@code 1}, {@code 443}), even standing alone.
     */
    private static final String DELIMITERS = "/?#@:;&,";
    /** Beyond this many pieces, only the pieces, the prefixes and the suffixes: all runs would be quadratically many. */
    private static final int MAX_PIECES_FOR_ALL_RUNS = 32;
    private static final Pattern PASSWORD_KEY = Pattern.compile("(?i).*" + JdbcUrls.CREDENTIAL_NAME_END);

    private final Set<String> literals;
    /** All the literals, longest first, so that a secret inside another one is not half masked; null if none. */
    private final Pattern pattern;

    private Secrets(Set<String> literals) {
        this.literals = literals;
        this.pattern = literals.isEmpty() ? null : compile(literals);
    }

    /**
     * The passwords a pool is configured with: its URL's, its replicas' URLs', the password-like
     * driver properties' and {@code password}'s (each may be null). A credentials supplier is not
     * asked: the connect masks the password of what it supplied.
     */
    public static Secrets of(String url, Properties properties, String password, List<String> replicas) {
        Secrets secrets = of(url, properties, password);
        for (String replica : replicas) {
            for (String replicaPassword : JdbcUrls.passwords(replica)) {
                secrets = secrets.with(replicaPassword);
            }
        }
        return secrets;
    }

    /** The secrets of a URL, its driver properties, and a password (each may be null). */
    public static Secrets of(String url, Properties properties, String password) {
        Set<String> literals = JdbcUrls.passwords(url);
        if (properties != null) {
            for (Map.Entry<Object, Object> e : properties.entrySet()) {
                if (e.getValue() instanceof String value && PASSWORD_KEY.matcher(String.valueOf(e.getKey())).matches()) {
                    literals.add(value);
                }
            }
        }
        return new Secrets(withPassword(literals, password));
    }

    /** These secrets and {@code password}. */
    public Secrets with(String password) {
        return password == null || password.isEmpty() || literals.contains(password) ? this
                : new Secrets(withPassword(new LinkedHashSet<>(literals), password));
    }

    private static Set<String> withPassword(Set<String> literals, String password) {
        if (password != null) {
            literals.add(password);
        }
        literals.remove("");
        return literals;
    }

    private static Pattern compile(Set<String> literals) {
        Set<String> terms = new LinkedHashSet<>(literals);
        for (String secret : literals) {
            terms.addAll(pieces(secret));
        }
        List<String> longestFirst = new ArrayList<>(terms);
        longestFirst.sort(Comparator.comparingInt(String::length).reversed());
        StringBuilder regex = new StringBuilder();
        for (String secret : longestFirst) {
            if (regex.length() > 0) {
                regex.append('|');
            }
            if (secret.length() >= ANYWHERE) {
                regex.append(Pattern.quote(secret));
            } else {
                regex.append("(?<![\\p{L}\\p{N}])").append(Pattern.quote(secret)).append("(?![\\p{L}\\p{N}])");
            }
        }
        return Pattern.compile(regex.toString());
    }

    /**
     * The runs of whole pieces of {@code secret} between its delimiters, of {@value #ANYWHERE}
     * characters or more; none if it has no delimiter. {@code a/bcde:fghi} gives {@code bcde},
     * {@code fghi}, {@code a/bcde} and {@code bcde:fghi}.
     */
    private static Set<String> pieces(String secret) {
        List<Integer> bounds = new ArrayList<>(); // each piece from bounds[2i] to bounds[2i+1]
        int from = 0;
        for (int i = 0; i <= secret.length(); i++) {
            if (i == secret.length() || DELIMITERS.indexOf(secret.charAt(i)) >= 0) {
                bounds.add(from);
                bounds.add(i);
                from = i + 1;
            }
        }
        Set<String> pieces = new LinkedHashSet<>();
        int count = bounds.size() / 2;
        boolean allRuns = count <= MAX_PIECES_FOR_ALL_RUNS;
        for (int first = 0; first < count; first++) {
            for (int last = first; last < count; last++) {
                if (allRuns || first == last || first == 0 || last == count - 1) {
                    String run = secret.substring(bounds.get(2 * first), bounds.get(2 * last + 1));
                    if (run.length() >= ANYWHERE && run.length() < secret.length()) {
                        pieces.add(run);
                    }
                }
            }
        }
        return pieces;
    }

    boolean isEmpty() {
        return pattern == null;
    }

    /** {@code text} with every secret in it masked. */
    public String mask(String text) {
        return text == null || pattern == null ? text : pattern.matcher(text).replaceAll(MASK);
    }

    /**
     * A driver's message as a log line or the health detail shows it: everything from its first quote
     * ({@code '} or {@code "}) to its last one becomes {@code ?} (to the end when only one), and an
     * H2-style {@code SQL statement:} tail is cut. The servers quote the value they could not read
     * ({@code invalid input syntax for type integer: "…"}) and H2 the whole statement, so a literal of
     * the pool's own connectionInitSql would reach the log. A quote inside the quoted value cannot end
     * the hidden part early: only the last quote does. Null for null.
     */
    public static String quotesHidden(String message) {
        if (message == null) {
            return null;
        }
        String s = message;
        int statement = s.indexOf("SQL statement:");
        if (statement >= 0) {
            s = s.substring(0, statement) + "SQL statement: …";
        }
        int first = -1;
        int last = -1;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '\'' || s.charAt(i) == '"') {
                first = first < 0 ? i : first;
                last = i;
            }
        }
        if (first < 0) {
            return s;
        }
        return s.substring(0, first) + "?" + (last > first ? s.substring(last + 1) : "");
    }

    /** Whether {@code text} shows a secret. */
    boolean revealedIn(String text) {
        return text != null && pattern != null && pattern.matcher(text).find();
    }

    /** {@code e} itself if nothing in it shows a secret, else a masked copy: an SQLException with the same SQLState. */
    public SQLException mask(SQLException e) {
        return (SQLException) MaskedCopy.of(e, this);
    }

    /**
     * A new exception with {@code message} (masked), of {@code e}'s kind (its class, else the nearest
     * superclass that can carry the message, SQLState and vendor code: what exception translators
     * read), with {@code e}'s SQLState and vendor code and {@code e} as its cause: the driver's
     * failure as the pool tells it, the driver's own exception kept whole beneath.
     */
    public SQLException relabeled(SQLException e, String message) {
        return MaskedCopy.relabeled(e, mask(message), this);
    }

    public RuntimeException mask(RuntimeException e) {
        return (RuntimeException) MaskedCopy.of(e, this);
    }

    public Error mask(Error e) {
        return (Error) MaskedCopy.of(e, this);
    }

    public Throwable mask(Throwable e) {
        return MaskedCopy.of(e, this);
    }
}
