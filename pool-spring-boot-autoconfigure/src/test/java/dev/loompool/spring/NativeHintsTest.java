package dev.loompool.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loompool.jdbc.LoomPoolDataSource;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;
import org.springframework.mock.env.MockEnvironment;

/**
 * A native image finds only what is declared: AOT processing of a context with the starter carries
 * loompool's hints, and they cover every field behind a VarHandle of the core, the drivers' methods
 * the core looks up by name, and the bean properties {@code loompool.*} binds onto.
 */
class NativeHintsTest {

    @Test
    void aotProcessingOfAContextWithTheStarterCarriesLoompoolsHints() throws NoSuchMethodException {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.setEnvironment(new MockEnvironment().withProperty("spring.datasource.url", LoomPoolAutoConfigurationTest.h2()));
        context.register(LoomPoolWiringAutoConfiguration.class, LoomPoolAutoConfiguration.class);
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get("com.example", "App")), new InMemoryGeneratedFiles());
        new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        assertCovers(generation.getRuntimeHints());
    }

    @Test
    void everyFieldBehindAVarHandleOfTheCoreIsDeclared() throws Exception {
        RuntimeHints hints = new RuntimeHints();
        new LoomPoolRuntimeHints().registerHints(hints, getClass().getClassLoader());
        TreeSet<String> holders = new TreeSet<>();
        Path classes = Path.of(URI.create(LoomPoolDataSource.class.getProtectionDomain().getCodeSource().getLocation().toString()));
        List<String> names;
        if (Files.isDirectory(classes)) {
            try (Stream<Path> files = Files.walk(classes)) {
                names = files.map(f -> classes.relativize(f).toString()).filter(NativeHintsTest::isClass).toList();
            }
        } else {
            try (java.util.jar.JarFile jar = new java.util.jar.JarFile(classes.toFile())) {
                names = jar.stream().map(java.util.jar.JarEntry::getName).filter(NativeHintsTest::isClass).toList();
            }
        }
        for (String name : names) {
            Class<?> type = Class.forName(name.replace('/', '.').replace('\\', '.').replaceAll("\\.class$", ""), false,
                    getClass().getClassLoader());
            for (Field field : type.getDeclaredFields()) {
                if (field.getType() == VarHandle.class && Modifier.isStatic(field.getModifiers())
                        && !type.getSimpleName().equals("Lane")) { // Lane's is an array-element handle: no field
                    holders.add(type.getName());
                }
            }
        }
        assertThat(holders).as("classes with a field VarHandle").isNotEmpty()
                .containsExactlyInAnyOrder(LoomPoolRuntimeHints.VAR_HANDLE_HOLDERS);
        for (String holder : holders) {
            assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(holder))).accepts(hints);
        }
    }

    /** A class file of a type: not the module descriptor, which no class loader defines. */
    private static boolean isClass(String name) {
        return name.endsWith(".class") && !name.endsWith("module-info.class");
    }

    private static void assertCovers(RuntimeHints hints) throws NoSuchMethodException {
        assertThat(LoomPoolDataSource.class.getSuperclass().getSimpleName()).isEqualTo("DataSourceSettings");
        var reflection = RuntimeHintsPredicates.reflection();
        assertThat(reflection.onMethodInvocation(org.postgresql.core.BaseConnection.class, "getTransactionState")).accepts(hints);
        assertThat(reflection.onMethodInvocation(org.postgresql.PGConnection.class.getMethod("getNotifications"))).accepts(hints);
        assertThat(reflection.onType(TypeReference.of("org.mariadb.jdbc.client.Context"))).accepts(hints);
        assertThat(reflection.onType(TypeReference.of("org.postgresql.jdbc.TypeInfoCache"))).accepts(hints);
        assertThat(reflection.onType(TypeReference.of("com.mysql.cj.protocol.ServerSession"))).accepts(hints);
        assertThat(reflection.onType(TypeReference.of("dev.loompool.jdbc.internal.physical.PhysicalConnection"))).accepts(hints);
        // the binder reflects on the class that declares the setters, as Boot's hints do
        assertThat(reflection.onMethodInvocation(LoomPoolDataSource.class.getSuperclass(), "setMaxSize")).accepts(hints);
        assertThat(reflection.onMethodInvocation(PoolKeys.CircuitBreakerKeys.class, "setOpenDuration")).accepts(hints);
        assertThat(reflection.onMethodInvocation(HikariSettings.class, "setConnectionTimeout")).accepts(hints);
        // UnknownKeys reads the valid keys from the configuration metadata
        assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/spring-configuration-metadata.json"))
                .accepts(hints);
        // the endpoint reads each setting by its getter (EndpointSettings)
        assertThat(reflection.onMethodInvocation(LoomPoolDataSource.class.getSuperclass(), "getPinWarningThreshold")).accepts(hints);
        assertThat(reflection.onMethodInvocation(LoomPoolDataSource.class, "getBindObserver")).accepts(hints);
        assertThat(reflection.onType(org.postgresql.Driver.class)).accepts(hints);
        assertThat(reflection.onType(TypeReference.of("com.sun.rowset.RowSetFactoryImpl"))).accepts(hints);
    }
}
