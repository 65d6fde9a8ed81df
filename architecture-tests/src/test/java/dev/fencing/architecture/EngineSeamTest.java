package dev.fencing.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL backend's two storage engines meet at one seam (issue 33, part 5; docs/ENGINE.md):
 * each engine's classes are in a package of their own and name none of the other's; the code both
 * share names neither engine's classes (it is written against {@code internal.JobStore}), except
 * the Dagger module that binds the engine; and that module is the only code that asks which engine
 * the configuration names.
 */
class EngineSeamTest {

  private static final Path SOURCES =
      Path.of("").toAbsolutePath().getParent().resolve("fencing-postgres/src/main/java");

  private static final String INTERNAL = "dev.fencing.postgres.internal.";
  private static final String IN_PLACE = INTERNAL + "inplace.";
  private static final String APPEND = INTERNAL + "append.";

  /** The one class of shared code that names the engines' classes: it binds one of them. */
  private static final String BINDER = INTERNAL + "PostgresModule";

  @Test
  void eachEngineNamesNoneOfTheOthersClassesAndSharedCodeNamesNeither() {
    SourceGraph graph = SourceGraph.of(List.of(SOURCES));
    Set<String> crossings = new TreeSet<>();
    int inPlace = 0;
    int append = 0;
    for (String type : graph.types()) {
      boolean isInPlace = type.startsWith(IN_PLACE);
      boolean isAppend = type.startsWith(APPEND);
      inPlace += isInPlace ? 1 : 0;
      append += isAppend ? 1 : 0;
      for (String used : graph.references(type)) {
        boolean usesInPlace = used.startsWith(IN_PLACE);
        boolean usesAppend = used.startsWith(APPEND);
        boolean crosses =
            isInPlace
                ? usesAppend
                : isAppend ? usesInPlace : (usesInPlace || usesAppend) && !type.equals(BINDER);
        if (crosses) {
          crossings.add(type + " -> " + used);
        }
      }
    }

    assertThat(inPlace).as("classes of the update-in-place engine").isGreaterThan(3);
    assertThat(append).as("classes of the append-only engine").isGreaterThan(3);
    assertThat(crossings).as("references across the seam between the engines").isEmpty();
  }

  @Test
  void onlyTheModuleThatBindsTheEngineAsksWhichEngineItIs() {
    Set<String> askers = new TreeSet<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        if (SourceGraph.strip(Files.readString(file)).contains(".appendOnly()")) {
          askers.add(SOURCES.relativize(file).toString().replace('\\', '/'));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }

    assertThat(askers).containsExactly("dev/fencing/postgres/internal/PostgresModule.java");
  }
}
