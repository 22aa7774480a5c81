package dev.loompool.jdbc.internal.driver;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What loompool needs to know about a JDBC URL: how to print it safely, and what it refuses in it. */
public final class JdbcUrls {

    /**
     * The end of a parameter's name that holds a credential: a password, in the spellings of pgjdbc,
     * MariaDB and MySQL Connector/J ({@code password}, {@code pwd}, {@code passwd}, {@code sslpassword},
     * {@code keyStorePassword}, MySQL's {@code password1}…), or a token or secret under another name
     * (SQL Server's {@code accessToken} and {@code keyStoreSecret}, Snowflake's {@code token}, an
     * {@code apiKey}), in any case.
     */
    static final String CREDENTIAL_NAME_END = "(?:(?:password|passwd|pwd)\\d?|token|secret|api_?key|credentials?)";
    /** A credential parameter ({@link #CREDENTIAL_NAME_END}); its value runs to the next {@code &} or {@code ;}. */
    private static final Pattern PASSWORD_PARAMETER = Pattern.compile(
            "(?i)(" + CREDENTIAL_NAME_END + "\\s*=\\s*)([^&;]*)");
    /** Oracle's {@code jdbc:oracle:thin:user/password@host…}. */
    private static final Pattern ORACLE_CREDENTIALS = Pattern.compile("(?i)^(jdbc:oracle:[^:/@]+:[^/@:]*/)([^@]*)(@)");

    /**
     * An authority as a well-formed URL has it, up to the path or the parameters: with a
     * {@code user:password@} that has none of {@code / ? # ;}, or with a port after the first
     * {@code :} (a host list {@code h1:5432,h2:5432} too).
     */
    private static final Pattern WELL_FORMED_AUTHORITY = Pattern.compile("(?:[^/?#;@]*@|[^/?#;@:]*:\\d+(?:[,/?#;]|$))");
    /** A {@code key=value} parameter, from its delimiter on. */
    private static final Pattern PARAMETER = Pattern.compile("[?&;]\\s*[A-Za-z][\\w.-]*\\s*=.*");

    private JdbcUrls() {
    }

    /** The URL with any password in it masked, for messages and logs. */
    public static String redact(String url) {
        if (url == null) {
            return null;
        }
        String masked = url;
        int[] authority = authorityPassword(masked);
        if (authority != null) {
            masked = masked.substring(0, authority[0]) + Secrets.MASK + masked.substring(authority[1]);
        }
        masked = ORACLE_CREDENTIALS.matcher(masked).replaceFirst("$1" + Secrets.MASK + "$3");
        return PASSWORD_PARAMETER.matcher(masked).replaceAll("$1" + Secrets.MASK);
    }

    /**
     * The passwords in the URL, as written and URL-decoded (as pgjdbc decodes them): the one of the
     * authority, Oracle's, and the value of each password parameter (also cut at {@code )} or
     * {@code ,}, where MySQL's {@code (key=value,…)} host syntax ends it).
     */
    static Set<String> passwords(String url) {
        Set<String> found = new LinkedHashSet<>();
        if (url == null) {
            return found;
        }
        int[] authority = authorityPassword(url);
        if (authority != null) {
            addWithDecoded(found, url.substring(authority[0], authority[1]));
        }
        Matcher oracle = ORACLE_CREDENTIALS.matcher(url);
        if (oracle.find()) {
            addWithDecoded(found, oracle.group(2));
        }
        Matcher parameter = PASSWORD_PARAMETER.matcher(url);
        while (parameter.find()) {
            String value = parameter.group(2);
            addWithDecoded(found, value);
            addWithDecoded(found, value.split("[),]", 2)[0]);
        }
        found.remove("");
        return found;
    }

    private static void addWithDecoded(Set<String> found, String value) {
        found.add(value);
        try {
            found.add(URLDecoder.decode(value, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException notEncoded) {
            // a stray % in the password: only the literal form can appear
        }
    }

    /**
     * Where the password of {@code //user:password@host} is, or null: from the first {@code :}
     * after a user name to the last {@code @} of the URL that is not in a parameter.
     *
     * <p>Generated passwords hold {@code ? # / ; @}, each of which would end the authority of a
     * well-formed URL; the drivers then cut the password there and read its pieces as a port, the
     * database or the query. So the authority is not taken to end at any of them: when in doubt,
     * more is masked, never less. Only an {@code @} in a parameter ({@code ?user=app@server}, as
     * Azure's names are, or SQL Server's {@code ;user=app@db}) of a URL whose authority is
     * well-formed ({@code host:port}, or with {@code user:password@}) is no end of a password:
     * there the first {@code :} is a port's, or the password ended at the earlier {@code @}.
     */
    private static int[] authorityPassword(String url) {
        int start = url.indexOf("//");
        if (start < 0) {
            return null;
        }
        start += 2;
        int colon = url.indexOf(':', start);
        if (colon < 0 || indexOfAny(url, "/?#;@[", start, colon) >= 0) {
            return null; // no "user:" (an IPv6 host's [, or a colon after the host, the path or the query)
        }
        boolean wellFormed = WELL_FORMED_AUTHORITY.matcher(url).region(start, url.length()).lookingAt();
        for (int at = url.lastIndexOf('@'); at > colon; at = url.lastIndexOf('@', at - 1)) {
            if (!(wellFormed && inParameter(url, colon, at))) {
                return new int[] {colon + 1, at};
            }
        }
        return null;
    }

    /** Whether the {@code @} at {@code at} is in the value of a {@code key=value} parameter that starts after {@code from}. */
    private static boolean inParameter(String url, int from, int at) {
        int delimiter = lastIndexOfAny(url, "?&;", from, at);
        return delimiter >= 0 && PARAMETER.matcher(url).region(delimiter, at).matches();
    }

    private static int indexOfAny(String s, String chars, int from, int to) {
        for (int i = from; i < to; i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    private static int lastIndexOfAny(String s, String chars, int from, int to) {
        for (int i = to - 1; i > from; i--) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The driver properties, plus what lets the driver reset a session: MariaDB Connector/J's
     * {@code reset()} sends COM_RESET_CONNECTION only with {@code useResetConnection=true}, and
     * without it user variables, {@code USE} and {@code SET SESSION} would reach the next borrower.
     * A value the user set, in the properties or the URL, is kept.
     */
    public static Properties withSessionReset(String url, Properties properties) {
        Properties copy = new Properties();
        copy.putAll(properties);
        if (url.toLowerCase(Locale.ROOT).startsWith("jdbc:mariadb:") && !copy.containsKey("useResetConnection")
                && !url.toLowerCase(Locale.ROOT).contains("useresetconnection=")) {
            copy.setProperty("useResetConnection", "true");
        }
        return copy;
    }

    /**
     * The driver properties, plus connect and login timeouts derived from the acquire timeout,
     * so that a host that accepts TCP connections and never answers cannot hold a connect, and the
     * thread making it, forever (pgjdbc waits without limit for its login by default). A timeout the
     * user set, in the properties or the URL, is kept. No socket timeout is set for the user's
     * statements: a long query is not a fault; the pool bounds its own round trips with
     * {@code isValid(validationTimeout)}.
     */
    public static Properties withTimeouts(String url, Properties properties, Duration acquireTimeout) {
        Properties copy = new Properties();
        copy.putAll(properties);
        String lower = url.toLowerCase(Locale.ROOT);
        long millis = Math.max(1000, acquireTimeout.toMillis()); // a zero acquire timeout still lets a connect finish
        if (lower.startsWith("jdbc:postgresql:")) {
            String seconds = Long.toString((millis + 999) / 1000);
            setUnlessGiven(url, copy, "connectTimeout", seconds);
            setUnlessGiven(url, copy, "loginTimeout", seconds);
        } else if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) {
            setUnlessGiven(url, copy, "connectTimeout", Long.toString(millis));
            // Every version's default, said aloud: MariaDB Connector/J 2.x's reset() puts this option back
            // after a setNetworkTimeout (the pool's bounded reset makes one) and fails with a
            // NullPointerException where it was never set (found by the driver matrix).
            setUnlessGiven(url, copy, "socketTimeout", "0");
        }
        return copy;
    }

    public static void setUnlessGiven(String url, Properties properties, String key, String value) {
        for (String given : properties.stringPropertyNames()) {
            if (given.equalsIgnoreCase(key)) {
                return;
            }
        }
        if (!Pattern.compile("(?i)[?&;]" + key + "=").matcher(url).find()) {
            properties.setProperty(key, value);
        }
    }

    /**
     * False where the user told MariaDB Connector/J not to reset sessions ({@code useResetConnection=false}),
     * and where MySQL Connector/J caches server-side prepared statements ({@code useServerPrepStmts}
     * and {@code cachePrepStmts}): COM_RESET_CONNECTION drops them on the server, the driver's cache
     * keeps their ids, and the next borrower's statement fails ("Unknown prepared statement
     * handler"). Connections with session state are closed instead.
     */
    public static boolean driverResetsSessions(String url, Properties properties) {
        if (url.toLowerCase(Locale.ROOT).startsWith("jdbc:mysql:")
                && "true".equalsIgnoreCase(option(url, properties, "useServerPrepStmts", "false"))
                && "true".equalsIgnoreCase(option(url, properties, "cachePrepStmts", "false"))) {
            return false;
        }
        return !option(url, properties, "useResetConnection", "true").equalsIgnoreCase("false");
    }

    /** A driver option as the properties or else the URL give it, or {@code otherwise}. */
    private static String option(String url, Properties properties, String key, String otherwise) {
        for (String given : properties.stringPropertyNames()) {
            if (given.equalsIgnoreCase(key)) {
                return properties.getProperty(given);
            }
        }
        var m = Pattern.compile("(?i)[?&;]" + key + "=([^&;]*)").matcher(url);
        return m.find() ? m.group(1) : otherwise;
    }

    /**
     * Why loompool refuses this URL, or null. A driver-side pool under loompool would hold
     * connections loompool cannot see, reset or bound.
     */
    public static String refusal(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if ((lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:"))
                && Pattern.compile("[?&;]pool=true").matcher(lower).find()) {
            return "jdbcUrl " + redact(url) + " turns on the driver's own connection pool (pool=true); "
                    + "loompool is the pool: remove pool=true from the URL";
        }
        if (lower.startsWith("jdbc:postgresql://")) {
            // pgjdbc reads neither of these, and logs the whole URL (java.util.logging, WARNING)
            // when it meets them: its password too, where loompool cannot mask it.
            String rest = url.substring("jdbc:postgresql://".length());
            if (authorityPassword(url) != null) {
                return "jdbcUrl " + redact(url) + " has a user and password before the host, which the PostgreSQL "
                        + "driver does not read (it would log the whole URL); set username and password instead";
            }
            int query = rest.indexOf('?');
            if ((query < 0 ? rest : rest.substring(0, query)).indexOf('/') < 0) {
                return "jdbcUrl " + redact(url) + " needs a / after the host and port "
                        + "(jdbc:postgresql://host:port/database); the PostgreSQL driver would log the whole URL";
            }
        }
        return null;
    }
}
