package example.workers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.spi.ToolProvider;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The fencing-postgres jar as the build published it, which {@code package} finishes: it is a named
 * module exporting its front door only, and it carries jOOQ's licence beside jOOQ, not at {@code
 * META-INF}'s root where it would pass for ours.
 */
class PublishedJarTest {

  private static final File JAR = published("fencing-postgres-");

  @Test
  void jarDescribeModuleShowsTheFrontDoorOnly() {
    StringWriter out = new StringWriter();
    int status =
        ToolProvider.findFirst("jar")
            .orElseThrow()
            .run(
                new PrintWriter(out),
                new PrintWriter(out),
                "--describe-module",
                "--file",
                JAR.getPath());
    List<String> lines = out.toString().lines().toList();

    assertThat(status).as(out.toString()).isZero();
    assertThat(lines.getFirst())
        .startsWith("dev.fencing.postgres@")
        .endsWith("!/module-info.class");
    assertThat(lines)
        .filteredOn(line -> line.matches("(qualified )?(exports|opens) .*"))
        .containsExactlyInAnyOrder("exports dev.fencing.postgres", "exports dev.fencing.postgres.admin");
    assertThat(lines)
        .filteredOn(line -> line.startsWith("requires"))
        .noneMatch(line -> line.contains("jooq") || line.contains("r2dbc"));
  }

  @Test
  void theLicencesOfWhatItCarriesAreKeptApartFromOurs() throws IOException {
    try (ZipFile jar = new ZipFile(JAR)) {
      assertThat(text(jar, "META-INF/LICENSE")).contains("Apache License", "Version 2.0");
      assertThat(text(jar, "META-INF/NOTICE"))
          .contains("fencing-postgres\nCopyright ")
          .contains("Reactive Relational Database Connectivity");
      assertThat(text(jar, "META-INF/licenses/jooq/LICENSE.txt")).contains("jooq.org");
      assertThat(jar.getEntry("META-INF/licenses/jooq/ABOUT.txt")).isNotNull();
      assertThat(jar.stream().map(ZipEntry::getName))
          .doesNotContain("META-INF/LICENSE.txt", "META-INF/ABOUT.txt", "META-INF/README.txt");
    }
  }

  private static String text(ZipFile jar, String entry) throws IOException {
    ZipEntry found = jar.getEntry(entry);
    assertThat(found).as(entry).isNotNull();
    try (var in = jar.getInputStream(found)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static File published(String prefix) {
    return List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
        .map(File::new)
        .filter(file -> file.getName().startsWith(prefix) && file.getName().endsWith(".jar"))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no " + prefix + "*.jar on the class path"));
  }
}
