package dev.fencing.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Small programs for the tests of the rules themselves: written as text, compiled by javac as the
 * build compiles main code, and imported by ArchUnit as the rules see main code.
 */
final class Fixtures {

  private Fixtures() {}

  /**
   * Compiles {@code sources} (a file's path under the source root, and its code) in {@code dir}.
   */
  static JavaClasses compile(Path dir, Map<String, String> sources) {
    Path src = dir.resolve("src");
    Path out = dir.resolve("classes");
    List<Path> files = new ArrayList<>();
    try {
      for (Map.Entry<String, String> source : sources.entrySet()) {
        Path file = src.resolve(source.getKey());
        Files.createDirectories(file.getParent());
        Files.writeString(file, source.getValue());
        files.add(file);
      }
      Files.createDirectories(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager fileManager = javac.getStandardFileManager(null, null, null)) {
      boolean compiled =
          javac
              .getTask(
                  null,
                  fileManager,
                  diagnostics,
                  List.of("--release", "21", "-proc:none", "-d", out.toString()),
                  null,
                  fileManager.getJavaFileObjectsFromPaths(files))
              .call();
      assertThat(compiled).as("the fixture compiles: %s", diagnostics.getDiagnostics()).isTrue();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ClassFileImporter().importPath(out);
  }
}
