package dev.loompool.jdbc;

/**
 * How pins end ({@link PinReleaseAndResetSuite}) on a real MariaDB, over the fixture of
 * {@link MariaDbPinSemanticsTest} (its URL allows multi-statement strings); the driver matrix runs
 * it on each MariaDB and MySQL Connector/J version.
 */
class MariaDbPinReleaseAndResetTest extends PinReleaseAndResetSuite {

    MariaDbPinReleaseAndResetTest() {
        super(MariaDbPinSemanticsTest.pinSemanticsSupport());
    }
}
