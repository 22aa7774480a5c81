package dev.loompool.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Spring layer's place in docs/ARCHITECTURE.md: core &lt;- JDBC &lt;- Spring
 * ({@code dev.loompool.spring}), and the Spring layer uses pool-core's public API only. pool-core's
 * own rules (its layering, its public API list, its engines' doors and rooms) run in pool-core's
 * build (pool-core's ArchitectureTest); this one keeps the Spring layer's, and the test suites' limit.
 */
class ArchitectureTest {

    /** pool-core's exported packages (pool-core's ArchitectureTest checks its public types there, one by one). */
    private static final Set<String> API_PACKAGES = Set.of("dev.loompool", "dev.loompool.jdbc");

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        // The tests, this module's and pool-core's test-jar, are not the product.
        ImportOption mainOnly = location -> !location.contains("/test-classes/") && !location.contains("-tests.jar");
        main = new ClassFileImporter().withImportOption(mainOnly).importPackages("dev.loompool");
    }

    @Test
    void theSpringLayerUsesThePublicApiOnly() {
        noClasses().that().resideInAPackage("dev.loompool.spring..")
                .should().dependOnClassesThat(DescribedPredicate.describe(
                        "are loompool core or JDBC types outside the public API",
                        (JavaClass c) -> !c.getPackageName().startsWith("dev.loompool.spring")
                                && c.getPackageName().startsWith("dev.loompool")
                                && !(API_PACKAGES.contains(c.getPackageName())
                                        && topLevel(c).getModifiers().contains(JavaModifier.PUBLIC))))
                .check(main);
    }

    /** At most two levels of hand-written classes in any hierarchy of the Spring layer. */
    @Test
    void noHierarchyIsDeeperThanTwoLevels() {
        assertThat(deeperThanTwo(main).stream().filter(c -> c.startsWith("dev.loompool.spring"))).isEmpty();
    }

    /**
     * The test suites keep the same limit: pool-core's (its test-jar is on this module's class
     * path) and this module's. A support class is held, or a suite parameterized, not inherited.
     */
    @Test
    void noTestHierarchyIsDeeperThanTwoLevels() {
        JavaClasses all = new ClassFileImporter().importPackages("dev.loompool");
        List<String> tests = deeperThanTwo(all).stream().filter(c -> !main.contain(c.substring(0, c.indexOf(' ')))).toList();
        assertThat(all.stream().filter(c -> !main.contain(c.getName())).count()).as("test classes seen").isGreaterThan(100);
        assertThat(tests).isEmpty();
    }

    /** No abstract class of the Spring layer calls an abstract method of its own: a rule lives where it is read. */
    @Test
    void noBaseClassCallsDownIntoASubclass() {
        List<String> callsDown = new ArrayList<>();
        for (JavaClass c : main) {
            if (!c.getPackageName().startsWith("dev.loompool.spring") || !c.getModifiers().contains(JavaModifier.ABSTRACT)
                    || c.isInterface()) {
                continue;
            }
            for (JavaMethod m : c.getMethods()) {
                if (m.getModifiers().contains(JavaModifier.ABSTRACT)) {
                    m.getCallsOfSelf().stream().filter(call -> call.getOriginOwner().equals(c))
                            .forEach(call -> callsDown.add(call.getDescription()));
                }
            }
        }
        assertThat(callsDown).isEmpty();
    }

    private static List<String> deeperThanTwo(JavaClasses classes) {
        List<String> deep = new ArrayList<>();
        for (JavaClass c : classes) {
            int levels = 0;
            for (Optional<JavaClass> k = Optional.of(c); k.isPresent() && isOurs(k.get()); k = k.get().getRawSuperclass()) {
                levels += generated(k.get()) ? 0 : 1;
            }
            if (levels > 2) {
                deep.add(c.getName() + " (" + levels + " levels)");
            }
        }
        return deep;
    }

    private static boolean isOurs(JavaClass c) {
        return c.getPackageName().startsWith("dev.loompool");
    }

    private static boolean generated(JavaClass c) {
        return c.getPackageName().equals("dev.loompool.jdbc.internal.handle") && c.getSimpleName().startsWith("Delegating");
    }

    private static JavaClass topLevel(JavaClass c) {
        JavaClass k = c;
        while (k.getEnclosingClass().isPresent()) {
            k = k.getEnclosingClass().get();
        }
        return k;
    }
}
