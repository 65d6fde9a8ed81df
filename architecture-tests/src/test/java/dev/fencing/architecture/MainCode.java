package dev.fencing.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.LocationProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The main code of every module directly under the repository root: the classes compiled from its
 * {@code src/main/java}, read from its {@code target/classes}, so the reactor builds those modules
 * first (this module depends on each). Classes generated at build time (Dagger's factories, jOOQ's
 * tables, JMH's harness) are left out, as are {@code package-info} and {@code module-info}: they
 * have no source of their own in {@code src/main/java}, and no design of ours to judge.
 *
 * <p>Both where the classes are and which of them count, for {@code @AnalyzeClasses(locations =
 * MainCode.class, importOptions = MainCode.class)}, which ArchUnit imports once for all the tests.
 * {@code -Dfencing.repository=DIR} reads another tree, built, e.g. an older commit's.
 */
public final class MainCode implements LocationProvider, ImportOption {

  /** The repository root: surefire runs in this module's directory, one below it. */
  static final Path REPOSITORY =
      Path.of(
          System.getProperty(
              "fencing.repository", Path.of("").toAbsolutePath().getParent().toString()));

  private static final String CLASSES = "/target/classes/";

  /** The modules directly under the repository root that have main code. */
  static List<Path> modules() {
    try (Stream<Path> modules = Files.list(REPOSITORY)) {
      return modules.filter(m -> Files.isDirectory(m.resolve("src/main/java"))).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Set<Location> get(Class<?> testClass) {
    return modules().stream()
        .map(
            module -> {
              Path classes = module.resolve("target/classes");
              if (!Files.isDirectory(classes)) {
                throw new IllegalStateException(
                    module.getFileName()
                        + " has main code but no target/classes: build it first, e.g. ./mvnw -pl"
                        + " architecture-tests -am verify");
              }
              return Location.of(classes);
            })
        .collect(Collectors.toSet());
  }

  /** Whether a class file of a module's {@code target/classes} was compiled from its sources. */
  @Override
  public boolean includes(Location location) {
    String path = location.asURI().getPath();
    int at = path.lastIndexOf(CLASSES);
    if (at < 0) {
      return false;
    }
    String file = path.substring(at + CLASSES.length()).replaceFirst("(\\$.*)?\\.class$", "");
    return !file.endsWith("package-info")
        && !file.endsWith("module-info")
        && Files.exists(Path.of(path.substring(0, at), "src/main/java", file + ".java"));
  }

  /** The classes compiled from the module {@code module} (a directory's name). */
  static DescribedPredicate<JavaClass> inModule(String module) {
    String classes = "/" + module + CLASSES;
    return DescribedPredicate.describe(
        "in " + module,
        c -> c.getSource().map(s -> s.getUri().getPath().contains(classes)).orElse(false));
  }

  /** The class {@code type} is nested in at the top, or {@code type} itself. */
  static JavaClass topLevel(JavaClass type) {
    JavaClass top = type;
    while (top.getEnclosingClass().isPresent()) {
      top = top.getEnclosingClass().get();
    }
    return top;
  }
}
