package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The two lanes of the integration tests (pom.xml, failsafe; docs/decisions.md "The suite in two lanes"). IT classes
 * run beside each other unless marked {@code @Execution(SAME_THREAD)}; the marked ones run one after another. Two
 * rules keep that safe, checked here on every compiled {@code *IT} class (a unit test: it fails before any server
 * starts):
 * <ul>
 * <li>every Arquillian class is marked: Arquillian holds one deployment per JVM, and a second class deploying
 * beside it would take the first one's container;</li>
 * <li>an unmarked class runs on its own private schema ({@code PrivateSchema}, or {@code ClassResources} that
 * makes one) or only against the contract server: the public schema's rows are swept by the timers of the marked
 * classes' servers and counted by their tests, so only one class at a time may work there.</li>
 * </ul>
 */
class LanesTest {
    /** Types of a static field that give the class a private schema. */
    private static final Set<String> PRIVATE_SCHEMA = Set.of("com.teamdesk.tasks.it.lifecycle.PrivateSchema",
            "com.teamdesk.tasks.it.lifecycle.ClassResources");
    /** Packages whose classes talk only to the contract server (timers off, its own application name). */
    private static final Set<String> CONTRACT_ONLY = Set.of("com.teamdesk.tasks.it.contract", "com.teamdesk.tasks.it.client");

    @Test
    void arquillianClassesRunOneAfterAnother() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Class<?> c : itClasses()) {
            if (usesArquillian(c) && !sameThread(c)) {
                wrong.add(c.getName());
            }
        }
        assertEquals(List.of(), wrong, "Arquillian classes without @Execution(ExecutionMode.SAME_THREAD)");
    }

    @Test
    void classesBesideOthersHaveASchemaOfTheirOwn() throws Exception {
        List<String> wrong = new ArrayList<>();
        int beside = 0;
        for (Class<?> c : itClasses()) {
            if (sameThread(c)) {
                continue;
            }
            beside++;
            boolean privateSchema = Arrays.stream(c.getDeclaredFields())
                    .filter(f -> Modifier.isStatic(f.getModifiers()))
                    .map(Field::getType).anyMatch(t -> PRIVATE_SCHEMA.contains(t.getName()));
            if (!privateSchema && !CONTRACT_ONLY.contains(c.getPackageName())) {
                wrong.add(c.getName());
            }
        }
        assertEquals(List.of(), wrong, "classes that run beside others on the public schema: mark them "
                + "@Execution(ExecutionMode.SAME_THREAD) or give them a PrivateSchema");
        assertTrue(beside >= 10, "the lane beside the others is empty: " + beside + " classes");
    }

    private static boolean usesArquillian(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            ExtendWith e = k.getAnnotation(ExtendWith.class);
            if (e != null && Arrays.asList(e.value()).contains(ArquillianExtension.class)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameThread(Class<?> c) {
        Execution e = c.getAnnotation(Execution.class); // @Inherited
        return e != null && e.value() == ExecutionMode.SAME_THREAD;
    }

    /** The concrete {@code *IT} classes compiled under this package. */
    private static List<Class<?>> itClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = Path.of(LanesTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root.resolve("com/teamdesk/tasks/it"))) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith("IT.class")).sorted().toList()) {
                String name = root.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
                Class<?> c = Class.forName(name, false, LanesTest.class.getClassLoader());
                if (!Modifier.isAbstract(c.getModifiers())) {
                    classes.add(c);
                }
            }
        }
        assertTrue(classes.size() >= 30, "found only " + classes.size() + " IT classes under " + root);
        return classes;
    }
}
