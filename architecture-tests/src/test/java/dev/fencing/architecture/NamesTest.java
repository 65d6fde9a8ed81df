package dev.fencing.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Names say what a type is, once: no class of a published module's main code is named after the
 * library it is written with ({@code Jooq...}: what it does is the name), and no two public
 * top-level types of the packages published modules export share a simple name, so a user never has
 * to qualify one of ours to tell it from another of ours. Reads the compiled main code ({@link
 * MainCode}) and each module's compiled {@code module-info} (as {@link PublicApiTest} does).
 */
@AnalyzeClasses(locations = MainCode.class, importOptions = MainCode.class)
class NamesTest {

  /** The modules a user depends on: those of {@link PublicApiTest}, and the test kit. */
  static final List<String> PUBLISHED =
      Stream.concat(PublicApiTest.PUBLISHED.stream(), Stream.of("fencing-testkit")).toList();

  /**
   * Simple names that two exported types still share, each with the types, while they wait to be
   * renamed; the test fails once a name here is no longer shared. Empty is the goal, and it is.
   */
  static final Map<String, Set<String>> SHARED_NOT_YET_RENAMED = Map.of();

  @ArchTest
  static void noClassOfAPublishedModuleIsNamedAfterJooq(JavaClasses classes) {
    JavaClasses published = classes.that(inAny(PUBLISHED));
    assertThat(published.size()).as("classes of published modules").isGreaterThan(100);

    assertThat(namedAfterJooq(published))
        .as("classes of published modules named after jOOQ: name them for what they do")
        .isEmpty();
  }

  @ArchTest
  static void noTwoExportedTypesShareASimpleName(JavaClasses classes) {
    Set<String> exported = new TreeSet<>();
    for (String module : PUBLISHED) {
      exported.addAll(PublicApiTest.exportedPackages(module, classes));
    }
    Map<String, Set<String>> shared =
        sharedNames(classes.that(describe("exported", c -> exported.contains(c.getPackageName()))));

    assertThat(shared)
        .as(
            "simple names shared by exported types (only these may be, for now: %s)",
            SHARED_NOT_YET_RENAMED.keySet())
        .isEqualTo(SHARED_NOT_YET_RENAMED);
  }

  @Test
  void findsAClassNamedAfterJooqNestedOrNot(@TempDir Path dir) {
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "p/JooqQueue.java", "package p;\nclass JooqQueue {}",
                "p/Store.java", "package p;\nclass Store { static class JooqRows {} }",
                "p/Queue.java", "package p;\nclass Queue {}"));

    assertThat(namedAfterJooq(classes)).containsExactly("p.JooqQueue", "p.Store$JooqRows");
  }

  @Test
  void findsPublicTopLevelTypesSharingASimpleName(@TempDir Path dir) {
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "a/JobRow.java", "package a;\npublic record JobRow() {}",
                "b/JobRow.java", "package b;\npublic final class JobRow {}",
                "c/JobRow.java", "package c;\nfinal class JobRow {}",
                "a/Outer.java", "package a;\npublic class Outer { public static class Builder {} }",
                "b/Other.java",
                    "package b;\npublic class Other { public static class Builder {} }"));

    assertThat(sharedNames(classes)).isEqualTo(Map.of("JobRow", Set.of("a.JobRow", "b.JobRow")));
  }

  /** The classes (nested ones too) whose simple name has {@code Jooq} in it. */
  static Set<String> namedAfterJooq(JavaClasses classes) {
    return classes.stream()
        .filter(c -> c.getSimpleName().contains("Jooq"))
        .map(JavaClass::getName)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The simple names that more than one public top-level type has, each with those types. */
  static Map<String, Set<String>> sharedNames(JavaClasses classes) {
    Map<String, Set<String>> byName = new TreeMap<>();
    classes.stream()
        .filter(JavaClass::isTopLevelClass)
        .filter(c -> c.getModifiers().contains(JavaModifier.PUBLIC))
        .forEach(
            c -> byName.computeIfAbsent(c.getSimpleName(), n -> new TreeSet<>()).add(c.getName()));
    byName.values().removeIf(types -> types.size() < 2);
    return byName;
  }

  private static com.tngtech.archunit.base.DescribedPredicate<JavaClass> inAny(
      List<String> modules) {
    return describe(
        "in " + modules, c -> modules.stream().anyMatch(m -> MainCode.inModule(m).test(c)));
  }
}
