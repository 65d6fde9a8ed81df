package dev.fencing.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test kit's heavy libraries are optional dependencies, so a user adds only those of the parts
 * they use: only the property engine reaches QuickTheories, and only the fixture's class of each
 * route names embedded PostgreSQL or Testcontainers (the fixture loads that class only on its
 * route), besides {@code PostgresServer}, which names embedded PostgreSQL for the tests that start
 * a server of their own. Reads the kit's main sources: a class names a library when its code (not
 * its comments) names one of the library's packages, and reaches it when a kit class it refers to,
 * directly or not, names it.
 */
class TestKitOptionalDependenciesTest {

  private static final Path KIT =
      Path.of("").toAbsolutePath().getParent().resolve("fencing-testkit/src/main/java");

  private static final String PROPERTY = "dev.fencing.testkit.property.";

  @Test
  void onlyThePropertyEngineReachesQuickTheories() {
    assertThat(classesNaming(KIT, "org.quicktheories."))
        .isNotEmpty()
        .allMatch(c -> c.startsWith(PROPERTY));

    assertThat(outsidePropertyReaching(KIT, "org.quicktheories."))
        .as("classes outside %s that reach QuickTheories", PROPERTY)
        .isEmpty();
  }

  @Test
  void eachRouteOfTheFixtureNamesItsLibraryInOneClass() {
    // and PostgresServer, a server of the test's own, which only a test that starts one loads
    assertThat(classesNaming(KIT, "io.zonky."))
        .containsExactlyInAnyOrder(
            "dev.fencing.testkit.db.EmbeddedStart", "dev.fencing.testkit.process.PostgresServer");
    assertThat(classesNaming(KIT, "org.testcontainers."))
        .containsExactly("dev.fencing.testkit.db.Containers");
  }

  @Test
  void findsAContractReachingQuickTheoriesThroughAnotherPackage(@TempDir Path dir)
      throws IOException {
    write(
        dir,
        "dev/fencing/testkit/contract/Contract.java",
        "package dev.fencing.testkit.contract;\n"
            + "import dev.fencing.testkit.property.Draw;\n"
            + "/** Not org.quicktheories.Gen: a comment. */\n"
            + "class Contract { Draw d; }");
    write(
        dir,
        "dev/fencing/testkit/property/Draw.java",
        "package dev.fencing.testkit.property;\n"
            + "class Draw { org.quicktheories.core.Gen<Integer> g; }");
    write(
        dir,
        "dev/fencing/testkit/db/Fixture.java",
        "package dev.fencing.testkit.db;\nclass Fixture {}");

    assertThat(outsidePropertyReaching(dir, "org.quicktheories."))
        .containsExactly("dev.fencing.testkit.contract.Contract");
  }

  /** The classes outside the property engine that name {@code library} or reach one that does. */
  private static Set<String> outsidePropertyReaching(Path root, String library) {
    SourceGraph graph = SourceGraph.of(List.of(root));
    Set<String> naming = classesNaming(root, library);
    Set<String> reaching = new TreeSet<>();
    for (String type : sources(root).keySet()) {
      if (!type.startsWith(PROPERTY) && reaches(graph, type, naming)) {
        reaching.add(type);
      }
    }
    return reaching;
  }

  private static boolean reaches(SourceGraph graph, String from, Set<String> targets) {
    Set<String> seen = new TreeSet<>(Set.of(from));
    Deque<String> work = new ArrayDeque<>(seen);
    while (!work.isEmpty()) {
      String type = work.pop();
      if (targets.contains(type)) {
        return true;
      }
      graph.references(type).stream().filter(seen::add).forEach(work::push);
    }
    return false;
  }

  /** The classes whose code, without comments and literals, names a type of {@code library}. */
  private static Set<String> classesNaming(Path root, String library) {
    Set<String> naming = new TreeSet<>();
    sources(root)
        .forEach(
            (type, code) -> {
              if (code.contains(library)) {
                naming.add(type);
              }
            });
    return naming;
  }

  /** Each class (fully qualified by its path) and its code, comments and literals blanked. */
  private static Map<String, String> sources(Path root) {
    Map<String, String> sources = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String name = root.relativize(file).toString().replace(".java", "").replace('/', '.');
        if (!name.endsWith("package-info") && !name.endsWith("module-info")) {
          sources.put(name, SourceGraph.strip(Files.readString(file)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sources;
  }

  private static void write(Path dir, String file, String code) throws IOException {
    Path path = dir.resolve(file);
    Files.createDirectories(path.getParent());
    Files.writeString(path, code);
  }
}
