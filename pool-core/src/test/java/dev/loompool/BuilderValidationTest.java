package dev.loompool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BuilderValidationTest {

    private final StubFactory factory = new StubFactory();

    @Test
    void negativeMinSizeIsRefusedByName() {
        assertThatThrownBy(() -> Pool.builder(factory).minSize(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("minSize must be >= 0, was -1");
    }

    @Test
    void maxSizeBelowOneIsRefusedByName() {
        assertThatThrownBy(() -> Pool.builder(factory).maxSize(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxSize must be >= 1, was 0");
    }

    @Test
    void minSizeAboveMaxSizeIsRefusedNamingBoth() {
        assertThatThrownBy(() -> Pool.builder(factory).minSize(5).maxSize(4).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minSize must be <= maxSize, was minSize=5, maxSize=4");
    }

    @Test
    void negativeDurationsAreRefusedByName() {
        assertThatThrownBy(() -> Pool.builder(factory).acquireTimeout(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("acquireTimeout must be");
        assertThatThrownBy(() -> Pool.builder(factory).healthcheckInterval(Duration.ofSeconds(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("healthcheckInterval must be");
    }

    @Test
    void aRefusedConfigurationCreatesNothing() {
        assertThatThrownBy(() -> Pool.builder(factory).minSize(3).maxSize(2).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(factory.created).hasValue(0);
    }

    @Test
    void defaultsFollowTheDesign() {
        try (Pool<Res> pool = Pool.builder(factory).build()) {
            assertThat(pool.stats().minSize()).isZero();
            assertThat(pool.stats().maxSize()).isEqualTo(10);
            assertThat(pool.name()).startsWith("loompool-");
            assertThat(pool.state()).isEqualTo(CircuitBreakerState.ACTIVE);
            assertThat(factory.created).hasValue(0);
        }
    }
}
