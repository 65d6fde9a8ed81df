package dev.fencing.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.cycle_detection.Cycle;
import com.tngtech.archunit.library.dependencies.Slice;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No two classes of main code refer to each other, directly or around a circle, in any module of
 * the repository: a circle means two files share types that want one owner. A nested class counts
 * as the class it is nested in, so two nested classes of one file may refer to each other. Reads
 * the compiled main code of every module, published or not ({@link MainCode}); a reference is one
 * that the bytecode holds (a call, a field, a signature, a supertype, an annotation, a class
 * literal, an {@code instanceof}), not a name in a comment or an import that only Javadoc uses.
 */
@AnalyzeClasses(locations = MainCode.class, importOptions = MainCode.class)
class NoImportCirclesTest {

  /**
   * Circles allowed for now: none. A circle found later is broken, not listed; the list stays so
   * that a part of the code being rewritten can be let through for a while, and the test then fails
   * once that circle is gone too.
   */
  static final List<Set<String>> CIRCLES_NOT_YET_BROKEN = List.of();

  @ArchTest
  static void mainCodeHasNoCircle(JavaClasses classes) {
    assertThat(MainCode.modules()).hasSizeGreaterThan(10);

    noCircle(CIRCLES_NOT_YET_BROKEN).check(classes);
  }

  @ArchTest
  static void eachCircleNotYetBrokenIsStillOne(JavaClasses classes) {
    for (Set<String> circle : CIRCLES_NOT_YET_BROKEN) {
      JavaClasses members =
          classes.that(describe("in " + circle, c -> circle.contains(topLevelName(c))));
      assertThat(circles(members).stream().flatMap(Set::stream).collect(Collectors.toSet()))
          .as("a circle not yet broken that is gone: take it off CIRCLES_NOT_YET_BROKEN")
          .isEqualTo(circle);
    }
  }

  @Test
  void findsACircleAcrossPackages(@TempDir Path dir) {
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "a/A.java", "package a;\npublic class A { b.B b; }",
                "b/B.java", "package b;\npublic class B { a.A a; }",
                "b/C.java", "package b;\nclass C { a.A a; }"));

    assertThat(circles(classes)).containsExactly(Set.of("a.A", "b.B"));
  }

  @Test
  void findsACircleThroughStaticCallsAndNestedTypes(@TempDir Path dir) {
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "p/A.java",
                "package p;\nclass A { static int x = B.y(); static class Inner { static int z; } }",
                "p/B.java",
                "package p;\nimport static p.C.helper;\nclass B { static int y() { return helper(); } }",
                "p/C.java",
                "package p;\nclass C { static int helper() { return A.Inner.z; } }"));

    assertThat(circles(classes)).containsExactly(Set.of("p.A", "p.B", "p.C"));
  }

  @Test
  void nestedClassesOfOneFileReferringToEachOtherAreNoCircle(@TempDir Path dir) {
    // PostgresFencing.SchemaStatus refers to PostgresFencing.Engine: one file, no circle
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "p/Outer.java",
                "package p;\nclass Outer { record Status(Engine e) {} enum Engine { A; Status s() {"
                    + " return new Status(this); } } }",
                "p/Other.java",
                "package p;\nclass Other { Outer.Status s; }"));

    assertThat(circles(classes)).isEmpty();
  }

  @Test
  void aSealedTypeNamingItsSubtypesIsNoCircleButUsingThemIs(@TempDir Path dir) {
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "p/Shape.java", "package p;\nsealed interface Shape permits Circle, p.Square {}",
                "p/Circle.java", "package p;\nrecord Circle() implements Shape {}",
                "p/Square.java", "package p;\nrecord Square() implements Shape {}",
                "q/Shape.java", "package q;\nsealed interface Shape permits Dot { Dot dot(); }",
                "q/Dot.java",
                    "package q;\nrecord Dot() implements Shape { public Dot dot() { return this; } }"));

    assertThat(circles(classes)).containsExactly(Set.of("q.Dot", "q.Shape"));
  }

  @Test
  void namesInCommentsAndLiteralsAreNoReference(@TempDir Path dir) {
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "p/A.java",
                "package p;\nclass A { B b; }",
                "p/B.java",
                "package p;\n/** See {@link A}. */\nclass B {\n  // A\n  String s = \"A\"; char c = 'A';\n"
                    + "  String t = \"\"\"\n    A\n    \"\"\";\n}"));

    assertThat(circles(classes)).isEmpty();
  }

  /**
   * A constant of a primitive type or a string is copied by javac into the class that reads it, so
   * reading one is no reference in the bytecode: that class does not load the other, and only the
   * value is shared, not a type.
   */
  @Test
  void readingAConstantThatJavacCopiesIsNoReference(@TempDir Path dir) {
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "p/A.java", "package p;\nclass A { static final int LIMIT = 3; B b; }",
                "p/B.java", "package p;\nclass B { int limit = A.LIMIT; }"));

    assertThat(circles(classes)).isEmpty();
  }

  /** Classes whose top-level classes refer to each other in a circle fail this rule. */
  static ArchRule noCircle(List<Set<String>> notYetBroken) {
    return slices()
        .assignedFrom(topLevelClassesJoining(notYetBroken))
        .should()
        .beFreeOfCycles()
        .as("classes of main code should not refer to each other in a circle")
        .because("a circle means two files share types that want one owner");
  }

  /** Every circle of top-level classes among {@code classes}, as the names of their members. */
  static List<Set<String>> circles(JavaClasses classes) {
    List<Set<String>> circles = new ArrayList<>();
    noCircle(List.of())
        .evaluate(classes)
        .handleViolations(
            (Collection<Cycle<?>> cycles, String message) ->
                cycles.forEach(
                    cycle ->
                        circles.add(
                            cycle.getEdges().stream()
                                .map(edge -> ((Slice) edge.getOrigin()).getNamePart(1))
                                .collect(Collectors.toCollection(TreeSet::new)))));
    return circles;
  }

  /** One slice per top-level class, and one for all the classes of each circle not yet broken. */
  private static SliceAssignment topLevelClassesJoining(List<Set<String>> notYetBroken) {
    return new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass type) {
        String top = topLevelName(type);
        return SliceIdentifier.of(
            notYetBroken.stream()
                .filter(circle -> circle.contains(top))
                .findFirst()
                .map(circle -> String.join(" + ", new TreeSet<>(circle)))
                .orElse(top));
      }

      @Override
      public String getDescription() {
        return "top-level classes";
      }
    };
  }

  private static String topLevelName(JavaClass type) {
    return MainCode.topLevel(type).getName();
  }
}
