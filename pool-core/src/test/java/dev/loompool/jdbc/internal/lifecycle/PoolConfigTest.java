package dev.loompool.jdbc.internal.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loompool.jdbc.Credentials;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/**
 * The frozen settings record (DESIGN.md §4, "Start"): at start the JavaBean is read once into an
 * immutable, validated {@link PoolConfig}, which keeps its own copies of what the caller may still
 * change; the few run-time settings ({@link PoolConfig.Limits}: sizes, timeouts, leak threshold)
 * change only as a new record, validated as a whole, so that minSize never exceeds maxSize.
 */
class PoolConfigTest {

    private static final String URL = "jdbc:stub:config";

    private static AbstractThrowableAssert<?, ? extends Throwable> refused(Consumer<ConfigBuilder> setting) {
        ConfigBuilder b = new ConfigBuilder(URL);
        setting.accept(b);
        return assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theRecordKeepsItsOwnCopyOfThePropertiesAndTheReplicasTheCallerGaveIt() {
        Properties given = new Properties();
        given.setProperty("ssl", "true");
        List<String> replicas = new ArrayList<>(List.of("jdbc:stub:replica-a"));
        ConfigBuilder b = new ConfigBuilder(URL);
        b.dataSourceProperties = given;
        b.replicas = replicas;
        PoolConfig config = b.build();

        given.setProperty("ssl", "false"); // the JavaBean's objects, changed after the start read them
        given.setProperty("added", "later");
        replicas.add("jdbc:stub:replica-b");

        assertThat(config.dataSourceProperties()).containsOnlyKeys("ssl").containsEntry("ssl", "true");
        assertThat(config.replicas()).containsExactly("jdbc:stub:replica-a");
        assertThatThrownBy(() -> config.replicas().add("jdbc:stub:replica-c"))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void whatTheRecordHandsOutIsACopyTooSinceDriversMutateWhatTheyAreGiven() {
        Properties given = new Properties();
        given.setProperty("ssl", "true");
        ConfigBuilder b = new ConfigBuilder(URL);
        b.dataSourceProperties = given;
        PoolConfig config = b.build();

        Properties handedOut = config.dataSourceProperties();
        handedOut.setProperty("password", "mutated-by-driver");
        handedOut.remove("ssl");

        assertThat(config.dataSourceProperties()).containsOnlyKeys("ssl").containsEntry("ssl", "true");
        assertThat(config.dataSourceProperties()).isNotSameAs(config.dataSourceProperties());
    }

    @Test
    void nullPropertiesAndReplicasReadAsNone() {
        ConfigBuilder b = new ConfigBuilder(URL);
        b.dataSourceProperties = null;
        b.replicas = null;
        PoolConfig config = b.build();

        assertThat(config.dataSourceProperties()).isEmpty();
        assertThat(config.replicas()).isEmpty();
    }

    @Test
    void theSettingsThatNeedNoOtherAreRefusedNamingTheKey() {
        refused(b -> b.poolName = " ").hasMessage("poolName must not be blank, was blank");
        refused(b -> b.poolName = null).hasMessage("poolName must not be blank, was null");
        refused(b -> b.jdbcUrl = null).hasMessage("jdbcUrl is required (the JDBC URL of the database)");
        refused(b -> b.jdbcUrl = "").hasMessageStartingWith("jdbcUrl is required");
        refused(b -> b.limits = null).hasMessage("limits are required");
        refused(b -> b.healthcheckInterval = Duration.ofSeconds(-1))
                .hasMessage("healthcheckInterval must be a duration of zero or more, was PT-1S");
        refused(b -> b.releaseMode = null).hasMessage("releaseMode must be set, was null");
        refused(b -> b.serverPooler = null).hasMessage("serverPooler must be set, was null");
        refused(b -> b.replicas = List.of("jdbc:stub:r1", " ")).hasMessage("replicas[1] must be a JDBC URL, was blank");
        refused(b -> b.replicaMinSize = -1).hasMessage("replicaMinSize must be >= 0, was -1");
        refused(b -> b.replicaMaxSize = 0).hasMessage("replicaMaxSize must be >= 1, was 0");
        refused(b -> b.transactionIsolation = "SNAPSHOT").hasMessageContaining("SNAPSHOT");
        refused(b -> b.circuitBreakerFailureThreshold = -1).hasMessage("circuitBreakerFailureThreshold must be >= 0, was -1");
        refused(b -> b.circuitBreakerOpenDuration = null)
                .hasMessage("circuitBreakerOpenDuration must be a duration of zero or more, was null");
        refused(b -> b.initializationFailTimeout = null).hasMessage("initializationFailTimeout must be set, was null");
        refused(b -> b.pinWarningThreshold = Duration.ofMillis(-1))
                .hasMessage("pinWarningThreshold must be a duration of zero or more, was PT-0.001S");
    }

    @Test
    void theEdgeValuesOfEachRangeAreAccepted() {
        ConfigBuilder b = new ConfigBuilder(URL);
        b.initializationFailTimeout = Duration.ofSeconds(-1); // negative: never fail the start
        b.circuitBreakerFailureThreshold = 0; // the breaker off
        b.replicaMinSize = 0;
        b.replicaMaxSize = 1;
        b.transactionIsolation = "repeatable read";
        b.limits = ConfigBuilder.limits(0, 1);

        PoolConfig config = b.build();

        assertThat(config.initializationFailTimeout()).isNegative();
        assertThat(config.limits().maxSize()).isEqualTo(1);
    }

    @Test
    void theReplicasSizesAreCheckedAgainstEachOtherAndAgainstTheMaxSizeTheyFollow() {
        refused(b -> {
            b.replicaMinSize = 3;
            b.replicaMaxSize = 2;
        }).hasMessage("replicaMinSize must be <= replicaMaxSize, was replicaMinSize=3, replicaMaxSize=2");
        refused(b -> {
            b.replicaMinSize = 5; // replicaMaxSize unset: the primary's maxSize, 4
        }).hasMessage("replicaMinSize must be <= replicaMaxSize (maxSize unless set), was replicaMinSize=5, maxSize=4");
    }

    @Test
    void theReplicasFollowThePrimarysSizesUnlessSetWithTheirMinSizeClampedToTheirMaxSize() {
        PoolConfig following = new ConfigBuilder(URL).build();
        assertThat(following.replicaMinSize(ConfigBuilder.limits(2, 6))).isEqualTo(2);
        assertThat(following.replicaMaxSize(ConfigBuilder.limits(2, 6))).isEqualTo(6);

        ConfigBuilder smaller = new ConfigBuilder(URL);
        smaller.replicaMaxSize = 1;
        PoolConfig clamped = smaller.build();
        assertThat(clamped.replicaMaxSize(ConfigBuilder.limits(2, 6))).isEqualTo(1);
        assertThat(clamped.replicaMinSize(ConfigBuilder.limits(2, 6))).as("the primary's 2, clamped to 1").isEqualTo(1);

        ConfigBuilder fixed = new ConfigBuilder(URL);
        fixed.replicaMinSize = 0;
        fixed.replicaMaxSize = 3;
        PoolConfig own = fixed.build();
        assertThat(own.replicaMinSize(ConfigBuilder.limits(2, 6))).isZero();
        assertThat(own.replicaMaxSize(ConfigBuilder.limits(2, 6))).isEqualTo(3);
    }

    @Test
    void theLimitsAreValidatedAsAWholeSoThatMinSizeNeverExceedsMaxSize() {
        assertThatThrownBy(() -> ConfigBuilder.limits(-1, 4)).hasMessage("minSize must be >= 0, was -1");
        assertThatThrownBy(() -> ConfigBuilder.limits(0, 0)).hasMessage("maxSize must be >= 1, was 0");
        assertThatThrownBy(() -> ConfigBuilder.limits(5, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("minSize must be <= maxSize, was minSize=5, maxSize=2");
        assertThat(ConfigBuilder.limits(3, 3).minSize()).as("equal sizes are in order").isEqualTo(3);
    }

    @Test
    void aRunTimeChangeIsValidatedAsConfigurationIs() {
        PoolConfig.Limits l = ConfigBuilder.limits(2, 4);

        assertThatThrownBy(() -> l.withSizes(5, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("minSize must be <= maxSize, was minSize=5, maxSize=4");
        assertThatThrownBy(() -> l.withSizes(2, 1)).hasMessageStartingWith("minSize must be <= maxSize, was minSize=2, maxSize=1");
        assertThatThrownBy(() -> l.withSizes(0, 0)).hasMessage("maxSize must be >= 1, was 0");
        assertThatThrownBy(() -> l.withAcquireTimeout(Duration.ofMillis(-1)))
                .hasMessage("acquireTimeout must be a duration of zero or more, was PT-0.001S");
        assertThatThrownBy(() -> l.withAcquireTimeout(null)).hasMessage("acquireTimeout must be a duration of zero or more, was null");
        assertThatThrownBy(() -> l.withLeakDetectionThreshold(Duration.ofSeconds(-2)))
                .hasMessage("leakDetectionThreshold must be a duration of zero or more, was PT-2S");
        assertThatThrownBy(() -> l.withValidationTimeout(null)).hasMessageStartingWith("validationTimeout must be");
        assertThatThrownBy(() -> l.withIdleTimeout(Duration.ofSeconds(-1))).hasMessageStartingWith("idleTimeout must be");
        assertThatThrownBy(() -> l.withMaxLifetime(Duration.ofSeconds(-1))).hasMessageStartingWith("maxLifetime must be");
        assertThat(l).as("a refused change leaves the limits as they were").isEqualTo(ConfigBuilder.limits(2, 4));
    }

    @Test
    void eachRunTimeChangeReplacesItsOwnValueAndKeepsTheOthers() {
        PoolConfig.Limits l = new PoolConfig.Limits(1, 4, Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofSeconds(3), Duration.ofSeconds(4), Duration.ofSeconds(5));
        Duration nine = Duration.ofSeconds(9);

        assertThat(l.withSizes(0, 8)).isEqualTo(new PoolConfig.Limits(0, 8, Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofSeconds(3), Duration.ofSeconds(4), Duration.ofSeconds(5)));
        assertThat(l.withAcquireTimeout(nine)).isEqualTo(new PoolConfig.Limits(1, 4, nine, Duration.ofSeconds(2),
                Duration.ofSeconds(3), Duration.ofSeconds(4), Duration.ofSeconds(5)));
        assertThat(l.withLeakDetectionThreshold(nine)).isEqualTo(new PoolConfig.Limits(1, 4, Duration.ofSeconds(1), nine,
                Duration.ofSeconds(3), Duration.ofSeconds(4), Duration.ofSeconds(5)));
        assertThat(l.withValidationTimeout(nine)).isEqualTo(new PoolConfig.Limits(1, 4, Duration.ofSeconds(1),
                Duration.ofSeconds(2), nine, Duration.ofSeconds(4), Duration.ofSeconds(5)));
        assertThat(l.withIdleTimeout(nine)).isEqualTo(new PoolConfig.Limits(1, 4, Duration.ofSeconds(1),
                Duration.ofSeconds(2), Duration.ofSeconds(3), nine, Duration.ofSeconds(5)));
        assertThat(l.withMaxLifetime(nine)).isEqualTo(new PoolConfig.Limits(1, 4, Duration.ofSeconds(1),
                Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ofSeconds(4), nine));
    }

    @Test
    void theCredentialsAreTheSuppliersWhenThereIsOneElseTheFixedPair() {
        PoolConfig fixed = new ConfigBuilder(URL).build();
        assertThat(fixed.credentials().get()).isEqualTo(new Credentials("app", "s3cretPw"));

        ConfigBuilder rotating = new ConfigBuilder(URL);
        Credentials[] current = {new Credentials("rot", "one")};
        rotating.credentialsSupplier = () -> current[0];
        PoolConfig config = rotating.build();
        assertThat(config.credentials().get()).isEqualTo(new Credentials("rot", "one"));
        current[0] = new Credentials("rot", "two");
        assertThat(config.credentials().get()).as("asked at every connect").isEqualTo(new Credentials("rot", "two"));
    }

    @Test
    void theRecordShowsNoPasswordOfTheUrlTheReplicasThePropertiesOrTheCredentials() {
        ConfigBuilder b = new ConfigBuilder(URL + "?password=hunter22");
        b.replicas = List.of("jdbc:stub:replica?password=replica99");
        b.dataSourceProperties.setProperty("sslpassword", "k3ystore");

        String shown = b.build().toString();

        assertThat(shown).doesNotContain("hunter22", "replica99", "k3ystore", "s3cretPw")
                .contains("password=****", "sslpassword", "username=app");
    }
}
