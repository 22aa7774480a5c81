package dev.loompool.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fuzzer's own instruments, on the real servers: every payload it hides must be one the
 * session fingerprint sees when it runs, or the fuzzer would call a leaking text clean; and a
 * hidden payload must really not run, or the generator's neutral texts would be noise.
 */
class FuzzTextsTest {

    @ParameterizedTest
    @EnumSource(FuzzTarget.class)
    void everyPayloadChangesTheFingerprintWhenItRuns(FuzzTarget target) throws Exception {
        target.prepare();
        List<String> unseen = new ArrayList<>();
        for (String payload : new FuzzTexts(target.dialect).payloads()) {
            ServerRun run = ServerRun.of(target, payload);
            if (!run.changed()) {
                unseen.add(payload + (run.error() == null ? "" : "  (" + run.error() + ")"));
            }
        }
        assertThat(unseen).as("payloads whose effect the fingerprint does not see").isEmpty();
    }

    @ParameterizedTest
    @EnumSource(FuzzTarget.class)
    void aHiddenPayloadDoesNotRun(FuzzTarget target) throws Exception {
        target.prepare();
        FuzzTexts texts = new FuzzTexts(target.dialect);
        SplittableRandom r = new SplittableRandom(27);
        List<String> ran = new ArrayList<>();
        for (String payload : texts.payloads()) {
            String hidden = texts.hidden(r, payload);
            ServerRun run = ServerRun.of(target, hidden);
            if (run.changed()) {
                ran.add(ClassifierFuzzTest.javaString(hidden) + " " + run.changes());
            }
        }
        assertThat(ran).as("hidden payloads the server ran").isEmpty();
    }
}
