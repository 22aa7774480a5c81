package dev.loompool.jdbc;

/**
 * How pins end ({@link PinReleaseAndResetSuite}) on a real PostgreSQL, over the fixture of
 * {@link PostgresPinSemanticsTest}; the driver matrix runs it on each pgjdbc version.
 */
class PostgresPinReleaseAndResetTest extends PinReleaseAndResetSuite {

    PostgresPinReleaseAndResetTest() {
        super(PostgresPinSemanticsTest.pinSemanticsSupport());
    }
}
