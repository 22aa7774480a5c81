package dev.loompool.jdbc.internal.physical;

/**
 * Where the application bound a connection: the first frame of the stack captured at the bind
 * (only with leakDetectionThreshold set, for the leak warnings) that is not loompool's, the JDK's,
 * a JDBC driver's, Spring's or Hibernate's. One frame, not a trace: the line the operator looks
 * for in a log line or an endpoint's answer. Read only when somebody asks.
 */
public final class BindSite {

    /**
     * The infrastructure, by class name prefix. loompool's own main packages only, not
     * {@code dev.loompool.} as a whole: an application (and loompool's tests) may live below it.
     */
    private static final String[] INFRASTRUCTURE = {
        "dev.loompool.jdbc.internal.", "dev.loompool.engine.", "dev.loompool.jdbc.LoomPoolDataSource",
        "dev.loompool.spring.LoomPool", "dev.loompool.spring.SpringTransactionPinning", "dev.loompool.spring.PoolWiring",
        "java.", "javax.", "jdk.", "sun.", "com.sun.",
        "org.springframework.", "org.hibernate.", "jakarta.persistence.",
        "org.postgresql.", "org.mariadb.", "com.mysql.", "org.h2.", "com.zaxxer.",
    };

    private BindSite() {
    }

    /** {@code com.example.Orders.place(Orders.java:42)}, or null if {@code from} is null or all infrastructure. */
    public static String of(Throwable from) {
        if (from == null) {
            return null;
        }
        for (StackTraceElement f : from.getStackTrace()) {
            if (!infrastructure(f.getClassName())) {
                return f.getClassName() + "." + f.getMethodName() + "(" + (f.getFileName() == null ? "?" : f.getFileName())
                        + (f.getLineNumber() > 0 ? ":" + f.getLineNumber() : "") + ")";
            }
        }
        return null;
    }

    private static boolean infrastructure(String className) {
        for (String prefix : INFRASTRUCTURE) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
