package dev.loompool.jdbc.internal.driver;

import static dev.loompool.jdbc.SecretLeaks.everything;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.UnknownHostException;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The masking rule of {@link Secrets}, and the masked copies of {@link MaskedCopy}. */
class SecretsTest {

    private static final Secrets PASSWORD = Secrets.of("jdbc:stub:x", null, "S3cretPw");

    @Test
    void theUrlIsPrintedWithoutItsPasswordInEveryForm() {
        assertThat(JdbcUrls.redact("jdbc:postgresql://user:S3cret@Pw@db:5432/test?ssl=true"))
                .isEqualTo("jdbc:postgresql://user:****@db:5432/test?ssl=true");
        assertThat(JdbcUrls.redact("jdbc:mariadb://db/test?user=u&PWD=S3cretPw&useSsl=true"))
                .isEqualTo("jdbc:mariadb://db/test?user=u&PWD=****&useSsl=true");
        assertThat(JdbcUrls.redact("jdbc:postgresql://db/test?sslpassword=a&password=b;passwd=c"))
                .isEqualTo("jdbc:postgresql://db/test?sslpassword=****&password=****;passwd=****");
        assertThat(JdbcUrls.redact("jdbc:mysql://db/test?password1=a&trustCertificateKeyStorePassword=b"))
                .isEqualTo("jdbc:mysql://db/test?password1=****&trustCertificateKeyStorePassword=****");
        assertThat(JdbcUrls.redact("jdbc:oracle:thin:scott/tiger@//db:1521/orcl"))
                .isEqualTo("jdbc:oracle:thin:scott/****@//db:1521/orcl");
        assertThat(JdbcUrls.redact("jdbc:postgresql://db:5432/test?user=a@example.com"))
                .as("an @ in the query is no password").isEqualTo("jdbc:postgresql://db:5432/test?user=a@example.com");
        assertThat(JdbcUrls.redact("jdbc:sqlserver://db:1433;user=app@db;password=S3cretPw"))
                .isEqualTo("jdbc:sqlserver://db:1433;user=app@db;password=****");
        assertThat(JdbcUrls.redact("jdbc:h2:mem:test")).isEqualTo("jdbc:h2:mem:test");
    }

    @Test
    void aPasswordThatBreaksTheAuthoritySyntaxIsMaskedUpToTheLastAtSign() {
        // each of these characters would end the authority of a well-formed URL: the drivers cut there
        for (String password : List.of("S3cret?Pw", "S3cret#Pw", "S3cret/Pw", "S3cret;Pw", "S3cret@Pw", "a/b+c==",
                "7/abc", "S3c?ret=Pw", "a@b/c?d#e", "S3cret?Pw@")) {
            String url = "jdbc:postgresql://app:" + password + "@db:5432,db2:5432/test?ssl=true";
            assertThat(JdbcUrls.redact(url)).as(url).isEqualTo("jdbc:postgresql://app:****@db:5432,db2:5432/test?ssl=true");
            assertThat(JdbcUrls.passwords(url)).as(url).contains(password);
        }
        assertThat(JdbcUrls.redact("jdbc:mariadb://root:S3cret?Pw@db")).isEqualTo("jdbc:mariadb://root:****@db");
    }

    @Test
    void anAtSignInAParameterOfAWellFormedUrlIsNoPassword() {
        // Azure's user=name@server, after a host with a port or after the userinfo of the authority
        assertThat(JdbcUrls.redact("jdbc:postgresql://db:5432/test?ssl=true&user=app@db&password=S3cretPw"))
                .isEqualTo("jdbc:postgresql://db:5432/test?ssl=true&user=app@db&password=****");
        assertThat(JdbcUrls.redact("jdbc:postgresql://app:S3cretPw@db:5432/test?user=app@db"))
                .isEqualTo("jdbc:postgresql://app:****@db:5432/test?user=app@db");
        assertThat(JdbcUrls.redact("jdbc:postgresql://[::1]:5432/test?user=app@db"))
                .isEqualTo("jdbc:postgresql://[::1]:5432/test?user=app@db");
        assertThat(JdbcUrls.redact("jdbc:mysql://app@db:3306/test")).isEqualTo("jdbc:mysql://app@db:3306/test");
    }

    @Test
    void theUrlGivesItsPasswordsAsWrittenAndDecoded() {
        assertThat(JdbcUrls.passwords("jdbc:postgresql://u:p%40ss@db/test?password=S3cret%21&sslpassword=k"))
                .contains("p%40ss", "p@ss", "S3cret%21", "S3cret!", "k");
        assertThat(JdbcUrls.passwords("jdbc:mysql://address=(host=db)(password=S3cretPw)(port=3306)/test"))
                .as("MySQL's (key=value) syntax ends the value at the parenthesis").contains("S3cretPw");
    }

    @Test
    void everyPasswordLikePropertyIsASecret() {
        Properties p = new Properties();
        p.setProperty("password", "one-secret");
        p.setProperty("sslKeyPassword", "two-secret");
        p.setProperty("trustStorePassword", "three-secret");
        p.setProperty("user", "alice");
        Secrets secrets = Secrets.of("jdbc:stub:x", p, null);
        assertThat(secrets.mask("one-secret two-secret three-secret alice")).isEqualTo("**** **** **** alice");
    }

    @Test
    void aShortPasswordIsMaskedOnlyWhereItStandsAlone() {
        Secrets secrets = Secrets.of("jdbc:stub:x", null, "pw1");
        assertThat(secrets.mask("Connection to 127.0.0.1:5432 refused for pw1 (pw1x, apw1) user:pw1@host"))
                .isEqualTo("Connection to 127.0.0.1:5432 refused for **** (pw1x, apw1) user:****@host");
        assertThat(Secrets.of("jdbc:stub:x", null, "1").mask("port 5432, attempt 1 of 21"))
                .isEqualTo("port 5432, attempt **** of 21");
        assertThat(Secrets.of("jdbc:stub:x", null, "").isEmpty()).isTrue();
        assertThat(PASSWORD.mask("xxS3cretPwxx")).as("four characters or more: everywhere").isEqualTo("xx****xx");
    }

    @Test
    void aPieceOfThePasswordThatADriverSplitsOffIsMasked() {
        Secrets secrets = Secrets.of("jdbc:stub:x", null, "S3cret/Pw:2024?xyz");
        assertThat(secrets.mask("Incorrect port value : S3cret")).isEqualTo("Incorrect port value : ****");
        assertThat(secrets.mask("unknown host Pw:2024, database 2024?xyz"))
                .as("a run of pieces is masked whole").isEqualTo("unknown host ****, database ****");
        assertThat(secrets.mask("Pw failed for xyz: S3cr"))
                .as("pieces shorter than four characters are not: they would mask every short word")
                .isEqualTo("Pw failed for xyz: S3cr");
        Properties p = new Properties();
        p.setProperty("password", "abc&defgh");
        assertThat(Secrets.of("jdbc:stub:x?password=k3y%2Fring", p, null).mask("defgh abc k3y ring k3y/ring"))
                .as("pieces of every password, decoded too").isEqualTo("**** abc k3y **** ****");
        assertThat(secrets.revealedIn("no route to S3cret")).isTrue();
    }

    @Test
    void anExceptionThatShowsNoSecretIsTheVeryOne() {
        SQLException e = new SQLException("Connection refused", "08001", new IOException("no route"));
        e.setNextException(new SQLException("and again"));
        assertThat((Throwable) PASSWORD.mask(e)).isSameAs(e);
    }

    @Test
    void aCopyKeepsClassSqlStateVendorCodeStackAndTheCleanParts() {
        IOException clean = new IOException("no route");
        SQLRecoverableException e = new SQLRecoverableException("login S3cretPw failed", "08006", 17, clean);
        SQLException copy = PASSWORD.mask(e);
        assertThat((Throwable) copy).isExactlyInstanceOf(SQLRecoverableException.class)
                .hasMessage("login **** failed");
        assertThat(copy.getSQLState()).isEqualTo("08006");
        assertThat(copy.getErrorCode()).isEqualTo(17);
        assertThat(copy.getStackTrace()).isEqualTo(e.getStackTrace());
        assertThat(copy.getCause()).as("a cause without the secret is shared").isSameAs(clean);
        assertThat(BrokenConnections.isBroken(copy)).isTrue();
    }

    @Test
    void aSecretDeepInTheGraphCopiesThePathToIt() {
        SQLException head = new SQLException("batch failed", "22000");
        UnknownHostException host = new UnknownHostException("user:S3cretPw@db");
        SQLException second = new SQLException("second", "08001", new IOException("wrapped", host));
        head.setNextException(new SQLException("first"));
        head.setNextException(second);
        head.addSuppressed(new IllegalStateException("also S3cretPw"));
        SQLException copy = PASSWORD.mask(head);
        assertThat(everything(copy)).doesNotContain("S3cretPw").contains("user:****@db");
        assertThat((Throwable) copy).hasMessage("batch failed").isNotSameAs(head);
        SQLException secondCopy = copy.getNextException().getNextException();
        assertThat(secondCopy.getSQLState()).isEqualTo("08001");
        assertThat(secondCopy.getCause().getCause()).isExactlyInstanceOf(UnknownHostException.class)
                .hasMessage("user:****@db");
        assertThat(copy.getSuppressed()).singleElement().isExactlyInstanceOf(IllegalStateException.class);
    }

    @Test
    void aLongChainOfNextExceptionsIsCopiedWithoutRecursion() throws InterruptedException {
        SQLException head = new SQLException("head");
        SQLException last = head;
        for (int i = 0; i < 2_000; i++) {
            SQLException next = new SQLException("row " + i);
            last.setNextException(next);
            last = next;
        }
        last.setNextException(new SQLException("row with S3cretPw"));
        // On a small stack, where a copy that recursed along the chain would overflow
        AtomicReference<SQLException> masked = new AtomicReference<>();
        Thread copier = new Thread(null, () -> masked.set(PASSWORD.mask(head)), "small-stack", 128 * 1024);
        copier.start();
        copier.join();
        int length = 0;
        SQLException x = masked.get();
        for (; x.getNextException() != null; x = x.getNextException()) {
            length++;
        }
        assertThat(length).isEqualTo(2_001);
        assertThat((Throwable) x).hasMessage("row with ****");
    }

    /** A driver's exception with constructors of its own, as pgjdbc's PSQLException has. */
    public static final class DriverException extends SQLTransientConnectionException {
        private static final long serialVersionUID = 1L;

        public DriverException(String message, Throwable cause) {
            super(message, "08001", cause);
        }
    }

    /** An exception that makes up its own message. */
    public static final class PrefixingException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public PrefixingException(String message) {
            super("[driver] " + message);
        }
    }

    @Test
    void aClassThatCannotBeRebuiltGivesWayToItsNearestSuperclassThatCan() {
        SQLException copy = PASSWORD.mask(new DriverException("no S3cretPw", null));
        assertThat((Throwable) copy).isExactlyInstanceOf(SQLTransientConnectionException.class).hasMessage("no ****");
        assertThat(copy.getSQLState()).isEqualTo("08001");
        RuntimeException runtime = PASSWORD.mask(new PrefixingException("S3cretPw"));
        assertThat(runtime).isExactlyInstanceOf(RuntimeException.class).hasMessage("[driver] ****");
        Error error = PASSWORD.mask(new AssertionError("S3cretPw"));
        assertThat(error).isInstanceOf(Error.class).hasMessage("****");
        BatchUpdateException batch = new BatchUpdateException("S3cretPw", "22000", 1, new int[] {1});
        assertThat(PASSWORD.mask(batch).getSQLState()).isEqualTo("22000");
    }

    @Test
    void aCycleOfCausesIsCutNotFollowedForever() {
        IOException a = new IOException("a S3cretPw");
        IOException b = new IOException("b", a);
        a.initCause(b);
        Throwable copy = PASSWORD.mask((Throwable) a);
        assertThat(everything(copy)).doesNotContain("S3cretPw");
        assertThat(copy.getCause()).hasMessage("b");
    }

    @Test
    void quotesHiddenHidesFromTheFirstQuoteToTheLastAndCutsH2sStatement() {
        assertThat(Secrets.quotesHidden("ERROR: invalid input syntax for type integer: \"S3cretTok9\""))
                .isEqualTo("ERROR: invalid input syntax for type integer: ?");
        assertThat(Secrets.quotesHidden("Data conversion error converting \"S3cretTok9\"; SQL statement:\n"
                + "SELECT CAST('S3cretTok9' AS INT) [22018-224]")).isEqualTo("Data conversion error converting ?; SQL statement: …");
        assertThat(Secrets.quotesHidden("bad value: \"it\" S3cretTok9\" (near 'x')")).isEqualTo("bad value: ?)")
                .doesNotContain("S3cret");
        assertThat(Secrets.quotesHidden("unclosed 'S3cretTok9")).isEqualTo("unclosed ?");
        assertThat(Secrets.quotesHidden("Connection to 127.0.0.1:1 refused.")).isEqualTo("Connection to 127.0.0.1:1 refused.");
        assertThat(Secrets.quotesHidden(null)).isNull();
    }
}
