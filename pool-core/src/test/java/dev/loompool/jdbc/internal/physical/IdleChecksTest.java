package dev.loompool.jdbc.internal.physical;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.stub.StubConnection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Broken connections (DESIGN.md §4), as {@link IdleChecks} checks an idle connection: validated
 * before hand-out only if it sat idle longer than about 500 ms, always once another was found
 * dead, within a budget that leaves its caller time for a connect; retired at max lifetime or
 * when evicted, before any round trip. Time is the fixture's clock, moved by hand.
 */
class IdleChecksTest extends StubPoolFixture {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;

    private boolean handOut(JdbcPool pool, PhysicalConnection p) throws Exception {
        return IdleChecks.validBeforeHandOut(pool, p, now, now + 10 * SECOND);
    }

    @Test
    void aConnectionReturnedMomentsAgoIsHandedOutWithoutARoundTrip() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection p = pool.connect();
        now += 100 * MS;

        assertThat(handOut(pool, p)).isTrue();
        assertThat(stub(p).calls("isValid")).as("trusted on its recent use").isZero();
    }

    @Test
    void aConnectionIdleLongerThanHalfASecondIsValidatedBeforeHandOut() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection p = pool.connect();
        now += 600 * MS;

        assertThat(handOut(pool, p)).isTrue();
        assertThat(stub(p).calls("isValid")).isEqualTo(1);
    }

    @Test
    void aDeadIdleConnectionIsRetiredAndTheOthersReturnedBeforeItAreNoLongerTrusted() throws Exception {
        JdbcPool pool = pool();
        PhysicalConnection dead = pool.connect();
        PhysicalConnection other = pool.connect();
        now += 600 * MS;
        other.lastReturnedAt = now - 1; // returned just before the dead one was found
        stub(dead).invalidate();

        assertThat(handOut(pool, dead)).isFalse();
        assertThat(dead.retirement()).isEqualTo("failed validation before hand-out (isValid)");

        now += 100 * MS; // other: returned 100 ms ago, which alone would be trusted
        assertThat(handOut(pool, other)).isTrue();
        assertThat(stub(other).calls("isValid")).as("validated: the network may have forgotten it too").isEqualTo(1);

        PhysicalConnection later = pool.connect(); // made (and so returned) after the dead one was found
        now += 100 * MS;
        assertThat(handOut(pool, later)).isTrue();
        assertThat(stub(later).calls("isValid")).as("returned since: trusted again").isZero();
    }

    @Test
    void aConnectionPastItsMaxLifetimeIsRetiredAtHandOutWithoutARoundTrip() throws Exception {
        JdbcPool pool = pool(0, Duration.ofMinutes(1), Duration.ZERO, false);
        PhysicalConnection p = pool.connect();
        now += Duration.ofMinutes(1).toNanos();

        assertThat(handOut(pool, p)).isFalse();
        assertThat(p.retirement()).isEqualTo(IdleChecks.MAX_LIFETIME);
        assertThat(stub(p).calls("isValid")).isZero();
    }

    @Test
    void theIdleCheckRetiresAConnectionPastItsMaxLifetimeOrEvictedAndValidatesTheOthers() throws Exception {
        JdbcPool pool = pool(0, Duration.ofMinutes(1), Duration.ZERO, false);
        PhysicalConnection old = pool.connect();
        now += 30 * SECOND;
        PhysicalConnection evicted = pool.connect();
        PhysicalConnection dead = pool.connect();
        PhysicalConnection good = pool.connect();
        evicted.markEvicted();
        stub(dead).invalidate();
        now += 30 * SECOND;

        assertThat(IdleChecks.healthyWhileIdle(pool, old)).isFalse();
        assertThat(old.retirement()).isEqualTo(IdleChecks.MAX_LIFETIME);
        assertThat(IdleChecks.healthyWhileIdle(pool, evicted)).isFalse();
        assertThat(evicted.retirement()).isEqualTo("evicted");
        assertThat(stub(evicted).calls("isValid")).isZero();
        assertThat(IdleChecks.healthyWhileIdle(pool, dead)).isFalse();
        assertThat(dead.retirement()).isEqualTo("failed validation while idle (isValid)");
        assertThat(IdleChecks.healthyWhileIdle(pool, good)).isTrue();
        StubConnection goodStub = stub(good);
        assertThat(goodStub.calls("isValid")).as("the keepalive").isEqualTo(1);
        assertThat(good.retirement()).isNull();
    }

    @Test
    void aHandOutValidationGetsHalfWhatItsCallerHasLeftAtLeastTheMinimumAtMostValidationTimeout() {
        long min = IdleChecks.MIN_VALIDATION_NANOS;
        assertThat(IdleChecks.handOutValidationNanos(5, 4 * SECOND)).as("half of what remains").isEqualTo(2 * SECOND);
        assertThat(IdleChecks.handOutValidationNanos(5, 30 * SECOND)).as("no more than validationTimeout")
                .isEqualTo(5 * SECOND);
        assertThat(IdleChecks.handOutValidationNanos(5, 2 * min)).isEqualTo(min);
        assertThat(IdleChecks.handOutValidationNanos(5, 2 * min - 2)).as("too little for a connect: all of it")
                .isEqualTo(2 * min - 2);
        assertThat(IdleChecks.handOutValidationNanos(5, 100 * MS)).as("never less than the minimum").isEqualTo(min);
    }
}
