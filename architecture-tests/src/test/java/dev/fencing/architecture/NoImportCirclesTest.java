package dev.fencing.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No two classes of main code refer to each other, directly or around a circle, in any module of
 * the repository: a circle means two files share types that want one owner. Reads the sources from
 * the repository root, so it covers every module, published or not.
 */
class NoImportCirclesTest {

  /**
   * The repository root: surefire runs in this module's directory, one below it ({@code
   * -Dfencing.repository=DIR} reads another tree, e.g. an older commit's).
   */
  private static final Path REPOSITORY =
      Path.of(
          System.getProperty(
              "fencing.repository", Path.of("").toAbsolutePath().getParent().toString()));

  /**
   * Circles allowed for now: none. A circle found later is broken, not listed; the list stays so
   * that a part of the code being rewritten can be let through for a while, and the test then fails
   * once that circle is gone too.
   */
  static final List<Set<String>> CIRCLES_NOT_YET_BROKEN = List.of();

  @Test
  void mainCodeHasNoCircle() {
    List<Path> roots = SourceGraph.mainSourceRoots(REPOSITORY);
    assertThat(roots).hasSizeGreaterThan(10);

    assertThat(SourceGraph.of(roots).circles())
        .as("classes of main code that refer to each other in a circle")
        .containsExactlyInAnyOrderElementsOf(CIRCLES_NOT_YET_BROKEN);
  }

  @Test
  void findsACircleThroughImportsAcrossPackages(@TempDir Path dir) throws IOException {
    write(dir, "a/A.java", "package a;\nimport b.B;\nclass A { B b; }");
    write(dir, "b/B.java", "package b;\nimport a.A;\nclass B { A a; }");
    write(dir, "b/C.java", "package b;\nclass C { }");

    assertThat(SourceGraph.of(List.of(dir)).circles()).containsExactly(Set.of("a.A", "b.B"));
  }

  @Test
  void findsACircleThroughSamePackageNamesStaticImportsAndNestedTypes(@TempDir Path dir)
      throws IOException {
    write(dir, "p/A.java", "package p;\nclass A { static int x = B.Y; }");
    write(dir, "p/B.java", "package p;\nimport static p.C.helper;\nclass B { int Y = helper(); }");
    write(dir, "p/C.java", "package p;\nclass C { static int helper() { return A.Inner.z; } }");

    assertThat(SourceGraph.of(List.of(dir)).circles()).containsExactly(Set.of("p.A", "p.B", "p.C"));
  }

  @Test
  void findsACircleThroughWildcardAndFullyQualifiedNames(@TempDir Path dir) throws IOException {
    write(dir, "a/A.java", "package a;\nimport b.*;\nclass A { B b; }");
    write(dir, "b/B.java", "package b;\nclass B { a.A a; }");

    assertThat(SourceGraph.of(List.of(dir)).circles()).containsExactly(Set.of("a.A", "b.B"));
  }

  @Test
  void aSealedTypeNamingItsSubtypesIsNoCircleButUsingThemIs(@TempDir Path dir) throws IOException {
    write(dir, "p/Shape.java", "package p;\nsealed interface Shape permits Circle, p.Square {}");
    write(dir, "p/Circle.java", "package p;\nrecord Circle() implements Shape {}");
    write(dir, "p/Square.java", "package p;\nrecord Square() implements Shape {}");
    write(dir, "q/Shape.java", "package q;\nsealed interface Shape permits Dot { Dot dot(); }");
    write(
        dir,
        "q/Dot.java",
        "package q;\nrecord Dot() implements Shape { public Dot dot() { return this; } }");

    assertThat(SourceGraph.of(List.of(dir)).circles()).containsExactly(Set.of("q.Dot", "q.Shape"));
  }

  @Test
  void namesInCommentsAndLiteralsAreNoReference(@TempDir Path dir) throws IOException {
    write(dir, "p/A.java", "package p;\nclass A { B b; }");
    write(
        dir,
        "p/B.java",
        "package p;\n/** See {@link A}. */\nclass B {\n  // A\n  String s = \"A\"; char c = 'A';\n"
            + "  String t = \"\"\"\n    A\n    \"\"\";\n}");

    SourceGraph graph = SourceGraph.of(List.of(dir));

    assertThat(graph.circles()).isEmpty();
    assertThat(graph.references("p.A")).containsExactly("p.B");
    assertThat(graph.references("p.B")).isEmpty();
  }

  private static void write(Path dir, String file, String code) throws IOException {
    Path path = dir.resolve(file);
    Files.createDirectories(path.getParent());
    Files.writeString(path, code);
  }
}
