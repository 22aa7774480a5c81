package dev.loompool.jdbc;

import dev.loompool.jdbc.internal.lifecycle.PoolConfig;
import dev.loompool.jdbc.internal.lifecycle.StartedPool;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * What a setter of {@link DataSourceSettings} checks before it takes a value, in this order: that
 * the pool has not started (a running pool's settings are frozen, but for the limits, which
 * {@link #live} applies to it), then that the value is in its range. A value out of range fails with an {@code IllegalArgumentException} naming the setting and
 * what it may be, so that a binder (Spring's {@code @ConfigurationProperties}) can say which key is
 * wrong. Each check returns the value it accepted, for the setter to store.
 */
final class SettingsCheck {

    private final Supplier<String> poolName;

    /** Set once the pool has started, or the data source was closed: the settings no longer change. */
    private volatile boolean frozen;
    /** The started pool, whose limits still change through it; null before the start and after the close. */
    private volatile StartedPool live;
    /**
     * Set while a start runs on the settings it has read: a value set then would reach neither the
     * pool being built nor, later, the running one, so it is refused until the start ends.
     */
    private volatile boolean starting;
    private final ReentrantLock changes = new ReentrantLock();

    SettingsCheck(Supplier<String> poolName) {
        this.poolName = poolName;
    }

    /** Called before the start reads the settings; {@link #startEnded} after, whatever its outcome. */
    void startReading() {
        starting = true;
    }

    void startEnded() {
        starting = false;
    }

    /** Freezes the settings; {@code running} (null at close) still takes changes of its limits. */
    void freeze(StartedPool running) {
        live = running;
        frozen = true;
    }

    /**
     * For a setting that may change while the pool runs: before the start, {@code value} as it is;
     * once started, {@code change} applied to the limits in force, validated as a whole and applied
     * to the running pool ({@link StartedPool#change}) before the setter stores the value, so that
     * a refused change leaves both as they were; once closed, refused as every setting is.
     */
    <T> void live(T value, UnaryOperator<PoolConfig.Limits> change, Consumer<T> store) {
        StartedPool running = live;
        if (running == null) {
            store.accept(beforeStart(value));
            return;
        }
        changes.lock(); // JMX and the application may both set: one change at a time, each on the last
        try {
            running.change(change.apply(running.limits()));
            store.accept(value); // under the lock too: the getter and the pool agree whichever change ran last
        } finally {
            changes.unlock();
        }
    }

    /** Any value, as long as the pool has not started. */
    <T> T beforeStart(T value) {
        if (frozen) {
            throw new IllegalStateException("LoomPoolDataSource '" + poolName.get()
                    + "' has started: its configuration is frozen");
        }
        if (starting) {
            throw new IllegalStateException("LoomPoolDataSource '" + poolName.get() + "' is starting on the settings"
                    + " it has read: set them before the start, or, for the limits, once it runs");
        }
        return value;
    }

    int atLeast(String setting, int min, int value) {
        return atLeast(setting, min, "", value);
    }

    /** {@code value} if at least {@code min}, whether or not the pool has started (see {@link #live}). */
    int range(String setting, int min, int value) {
        if (value < min) {
            throw new IllegalArgumentException(setting + " must be >= " + min + ", was " + value);
        }
        return value;
    }

    /** A duration of zero or more, whether or not the pool has started (see {@link #live}). */
    Duration zeroOrMore(String setting, Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(setting + " must be a duration of zero or more, was " + value);
        }
        return value;
    }

    /** {@code meaning} follows the bound in the message, e.g. what the bound value turns off. */
    int atLeast(String setting, int min, String meaning, int value) {
        beforeStart(value);
        if (value < min) {
            throw new IllegalArgumentException(setting + " must be >= " + min + meaning + ", was " + value);
        }
        return value;
    }

    /** Null (unset: a default applies) or at least {@code min}. */
    Integer unsetOrAtLeast(String setting, int min, Integer value) {
        beforeStart(value);
        return value == null ? null : atLeast(setting, min, value);
    }

    Duration nonNegative(String setting, Duration value) {
        beforeStart(value);
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(setting + " must be a duration of zero or more, was " + value);
        }
        return value;
    }

    /** Any duration, negative ones included, but not null. */
    Duration present(String setting, Duration value) {
        beforeStart(value);
        if (value == null) {
            throw new IllegalArgumentException(setting + " must be a duration, was null");
        }
        return value;
    }

    /** A constant of {@code type}: null is refused, naming every constant. */
    <E extends Enum<E>> E oneOf(String setting, Class<E> type, E value) {
        beforeStart(value);
        if (value == null) {
            String allowed = Arrays.stream(type.getEnumConstants()).map(Enum::name).collect(Collectors.joining(", "));
            throw new IllegalArgumentException(setting + " must be one of " + allowed + ", was null");
        }
        return value;
    }

    /** An immutable copy of {@code urls} (empty for null), none of them blank. */
    List<String> jdbcUrls(String setting, List<String> urls) {
        beforeStart(urls);
        List<String> copy = urls == null ? List.of() : List.copyOf(urls);
        for (int i = 0; i < copy.size(); i++) {
            if (copy.get(i).isBlank()) {
                throw new IllegalArgumentException(setting + "[" + i + "] must be a JDBC URL, was blank");
            }
        }
        return copy;
    }

    /** Null (the driver's default) or a level {@link StartedPool#isolationLevel} knows. */
    String isolation(String level) {
        beforeStart(level);
        if (level != null) {
            StartedPool.isolationLevel(level); // refuses an unknown level here, naming the allowed ones
        }
        return level;
    }
}
