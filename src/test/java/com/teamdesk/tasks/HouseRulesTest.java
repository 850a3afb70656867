package com.teamdesk.tasks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.teamdesk.tasks.platform.Jdbc;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 51: the house's rules, checked on the compiled application classes (ArchUnit) and, for SQL, on its sources,
 * so that a change that breaks one fails the build instead of waiting for the next review: arrows between packages
 * run one way, no loop between files, a kind imports only the contract ({@code task/spi}), only the ledger writes
 * {@code background_task}, only {@code platform/Jdbc} borrows a connection.
 */
class HouseRulesTest {

    private static JavaClasses app;

    @BeforeAll
    static void importApplication() {
        app = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("com.teamdesk.tasks");
    }

    @Test
    void packagesDependOnEachOtherOneWayOnly() {
        slices().matching("com.teamdesk.tasks.(**)").should().beFreeOfCycles().check(app);
    }

    @Test
    void noLoopBetweenFiles() {
        // a file is its top-level class with every class nested in it
        Map<String, Set<String>> uses = new TreeMap<>();
        for (JavaClass c : app) {
            String from = topLevel(c).getName();
            Set<String> targets = uses.computeIfAbsent(from, k -> new TreeSet<>());
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String to = topLevel(d.getTargetClass()).getName();
                if (!to.equals(from) && to.startsWith("com.teamdesk.tasks.")) {
                    targets.add(to);
                }
            }
        }
        assertEquals(List.of(), loops(uses), "loops between files (each file reaches the others)");
    }

    @Test
    void aKindImportsOnlyTheContractOfTheEngine() {
        noClasses().that().resideInAnyPackage("..task.export..", "..task.reminder..", "..task.digest..")
                .should().dependOnClassesThat().resideInAnyPackage("..task.engine..", "..task.ledger..",
                        "..task.sweep..", "..task.fairshare..", "..task.observe..", "..task.service..",
                        "..task.idempotency..", "..task.admin..", "..task.schedule..", "..task.live..",
                        "..tasks.web..")
                .because("a kind reaches the engine only through task/spi (issue 51)")
                .check(app);
    }

    @Test
    void onlyTheJdbcHelperBorrowsAConnection() {
        noClasses().that().doNotHaveFullyQualifiedName(Jdbc.class.getName())
                .should().callMethod(DataSource.class, "getConnection")
                .because("every store goes through platform/Jdbc: one way to bind, count and name the table (issue 51)")
                .check(app);
    }

    /** A statement that changes {@code background_task}, in one string literal or in literals joined by {@code +}. */
    private static final Pattern TASK_WRITE = Pattern.compile(
            "\\b(UPDATE|DELETE\\s+FROM|INSERT\\s+INTO)\\s+background_task\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern JOINED_LITERALS = Pattern.compile("\"(?:[^\"\\\\\\n]|\\\\.)*\"(?:\\s*\\+\\s*\"(?:[^\"\\\\\\n]|\\\\.)*\")*");

    @Test
    void onlyTheLedgerWritesTheTaskTable() throws IOException {
        Path main = Path.of("src/main/java/com/teamdesk/tasks");
        Path ledger = main.resolve("task/ledger");
        List<String> writers = new ArrayList<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java") && !p.startsWith(ledger)).toList()) {
                Matcher literals = JOINED_LITERALS.matcher(Files.readString(f));
                while (literals.find()) {
                    String sql = literals.group().replaceAll("\"\\s*\\+\\s*\"", "");
                    if (TASK_WRITE.matcher(sql).find()) {
                        writers.add(main.relativize(f) + ": " + sql);
                    }
                }
            }
        }
        assertEquals(List.of(), writers, "background_task is written only by task/ledger (issue 51)");
    }

    private static JavaClass topLevel(JavaClass c) {
        JavaClass t = c;
        while (t.getEnclosingClass().isPresent()) {
            t = t.getEnclosingClass().get();
        }
        return t;
    }

    /** Tarjan's strongly connected components of more than one file, each sorted. */
    private static List<List<String>> loops(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<List<String>> out = new ArrayList<>();
        int[] next = {0};
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, graph, index, low, stack, onStack, out, next);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
            Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<List<String>> out, int[] next) {
        index.put(v, next[0]);
        low.put(v, next[0]);
        next[0]++;
        stack.push(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, onStack, out, next);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            List<String> component = new ArrayList<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                component.sort(null);
                out.add(component);
            }
        }
    }
}
