package dev.fencing.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test kit's heavy libraries are optional dependencies, so a user adds only those of the parts
 * they use: only the property engine reaches QuickTheories, and only the fixture's class of each
 * route names embedded PostgreSQL or Testcontainers (the fixture loads that class only on its
 * route), besides {@code PostgresServer}, which names embedded PostgreSQL for the tests that start
 * a server of their own; only {@code CapturedLogs} names Logback. Reads the kit's compiled main
 * code ({@link MainCode}): a class names a library when its bytecode refers to one of the library's
 * classes (a nested class names it for the class it is nested in), and reaches it when a class it
 * refers to, directly or not, names it.
 */
@AnalyzeClasses(locations = MainCode.class, importOptions = MainCode.class)
class TestKitOptionalDependenciesTest {

  private static final String KIT = "dev.fencing.testkit..";

  private static final String PROPERTY = "dev.fencing.testkit.property..";

  @ArchTest
  static void onlyThePropertyEngineReachesQuickTheories(JavaClasses classes) {
    JavaClasses kit = classes.that(resideInAPackage(KIT));

    assertThat(classesNaming(kit, "org.quicktheories."))
        .as("classes that name QuickTheories")
        .isNotEmpty()
        .allMatch(c -> c.startsWith("dev.fencing.testkit.property."));

    outsidePropertyReaching("org.quicktheories..").check(kit);
  }

  @ArchTest
  static void eachRouteOfTheFixtureNamesItsLibraryInOneClass(JavaClasses classes) {
    JavaClasses kit = classes.that(resideInAPackage(KIT));

    // and PostgresServer, a server of the test's own, which only a test that starts one loads
    assertThat(classesNaming(kit, "io.zonky."))
        .containsExactlyInAnyOrder(
            "dev.fencing.testkit.db.EmbeddedStart", "dev.fencing.testkit.process.PostgresServer");
    assertThat(classesNaming(kit, "org.testcontainers."))
        .containsExactly("dev.fencing.testkit.db.Containers");
    assertThat(classesNaming(kit, "ch.qos.logback."))
        .containsExactly("dev.fencing.testkit.logging.CapturedLogs");
  }

  @Test
  void findsAContractReachingQuickTheoriesThroughAnotherPackage(@TempDir Path dir) {
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "dev/fencing/testkit/contract/Contract.java",
                "package dev.fencing.testkit.contract;\n"
                    + "import dev.fencing.testkit.property.Draw;\n"
                    + "/** Not org.quicktheories.core.Gen: a comment. */\n"
                    + "public class Contract { Draw d; }",
                "dev/fencing/testkit/property/Draw.java",
                "package dev.fencing.testkit.property;\n"
                    + "public class Draw { org.quicktheories.core.Gen<Integer> g; }",
                "dev/fencing/testkit/db/Fixture.java",
                "package dev.fencing.testkit.db;\nclass Fixture { Object o; }",
                // a stand-in for the library, which is not on this module's class path
                "org/quicktheories/core/Gen.java",
                "package org.quicktheories.core;\npublic interface Gen<T> {}"));

    Set<String> reaching = new TreeSet<>();
    outsidePropertyReaching("org.quicktheories..")
        .evaluate(classes.that(resideInAPackage(KIT)))
        .handleViolations(
            (Collection<JavaClass> violating, String message) ->
                violating.forEach(c -> reaching.add(c.getName())));
    assertThat(reaching).containsExactly("dev.fencing.testkit.contract.Contract");
  }

  /** The kit's classes outside the property engine may not name {@code library} or reach it. */
  private static ArchRule outsidePropertyReaching(String library) {
    return noClasses()
        .that()
        .resideOutsideOfPackage(PROPERTY)
        .should()
        .transitivelyDependOnClassesThat()
        .resideInAPackage(library)
        .as("classes outside " + PROPERTY + " should not reach " + library)
        .because("the test kit's optional libraries are loaded only on the routes that use them");
  }

  /** The top-level classes whose code refers to a class of {@code library} (a package prefix). */
  private static Set<String> classesNaming(JavaClasses classes, String library) {
    return classes.stream()
        .filter(
            c ->
                c.getDirectDependenciesFromSelf().stream()
                    .anyMatch(
                        d ->
                            d.getTargetClass()
                                .getBaseComponentType()
                                .getName()
                                .startsWith(library)))
        .map(c -> MainCode.topLevel(c).getName())
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
