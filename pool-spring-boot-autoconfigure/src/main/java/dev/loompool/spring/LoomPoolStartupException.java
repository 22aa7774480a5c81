package dev.loompool.spring;

/**
 * The auto-configured pool could not start: a setting is wrong, or the database cannot be
 * reached. {@link LoomPoolFailureAnalyzer} turns it into a startup report naming the key and the fix.
 */
public class LoomPoolStartupException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String action;

    LoomPoolStartupException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /** What to do about it. */
    public String getAction() {
        return action;
    }
}
