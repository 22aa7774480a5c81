package dev.loompool.jdbc;

import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.regex.Pattern;

/** What loompool needs to know about a JDBC URL: how to print it safely, and what it refuses in it. */
final class JdbcUrls {

    /** user:password@ in an authority, and password= / pwd= parameters. */
    private static final Pattern SECRETS = Pattern.compile(
            "(?i)(//[^/:@?;]*:)[^@/?;]*(@)|((?:password|pwd)=)[^&;]*");

    private JdbcUrls() {
    }

    /** The URL with any password in it masked, for messages and logs. */
    static String redact(String url) {
        if (url == null) {
            return null;
        }
        return SECRETS.matcher(url).replaceAll(m -> m.group(1) != null ? m.group(1) + "****" + m.group(2) : m.group(3) + "****");
    }

    /**
     * The driver properties, plus what lets the driver reset a session: MariaDB Connector/J's
     * {@code reset()} sends COM_RESET_CONNECTION only with {@code useResetConnection=true}, and
     * without it user variables, {@code USE} and {@code SET SESSION} would reach the next borrower.
     * A value the user set, in the properties or the URL, is kept.
     */
    static Properties withSessionReset(String url, Properties properties) {
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
    static Properties withTimeouts(String url, Properties properties, Duration acquireTimeout) {
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
        }
        return copy;
    }

    private static void setUnlessGiven(String url, Properties properties, String key, String value) {
        for (String given : properties.stringPropertyNames()) {
            if (given.equalsIgnoreCase(key)) {
                return;
            }
        }
        if (!Pattern.compile("(?i)[?&;]" + key + "=").matcher(url).find()) {
            properties.setProperty(key, value);
        }
    }

    /** False where the user told MariaDB Connector/J not to reset sessions ({@code useResetConnection=false}). */
    static boolean driverResetsSessions(String url, Properties properties) {
        String value = properties.getProperty("useResetConnection");
        if (value == null) {
            var m = Pattern.compile("(?i)[?&;]useResetConnection=([^&;]*)").matcher(url);
            value = m.find() ? m.group(1) : "true";
        }
        return !value.equalsIgnoreCase("false");
    }

    /**
     * Why loompool refuses this URL, or null. A driver-side pool under loompool would hold
     * connections loompool cannot see, reset or bound.
     */
    static String refusal(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if ((lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:"))
                && Pattern.compile("[?&;]pool=true").matcher(lower).find()) {
            return "jdbcUrl " + redact(url) + " turns on the driver's own connection pool (pool=true); "
                    + "loompool is the pool: remove pool=true from the URL";
        }
        return null;
    }
}
