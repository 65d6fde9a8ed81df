package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The published jar's module descriptor ({@code src/shaded/module-info.java}, put into the jar
 * after jOOQ was relocated into it) says what the one this module is compiled and tested with says,
 * but for jOOQ: no {@code requires org.jooq}, no package opened to it, and what the relocated jOOQ
 * reads itself.
 */
class ShadedModuleDescriptorTest {

  private static final Pattern DIRECTIVE =
      Pattern.compile("^\\s*((?:requires|exports|opens)\\b[^;]*);", Pattern.MULTILINE);

  /**
   * What the relocated jOOQ's classes read (jdeps on the shaded jar), and only they; they read
   * SLF4J too, which our own classes require.
   */
  private static final Set<String> READ_BY_JOOQ =
      Set.of("requires java.logging", "requires java.xml");

  @Test
  void thePublishedDescriptorIsTheCompiledOneWithoutJooq() throws IOException {
    Set<String> compiled = directives(Path.of("src/main/java/module-info.java"));
    Set<String> published = directives(Path.of("src/shaded/module-info.java"));

    Set<String> expected = new TreeSet<>();
    for (String directive : compiled) {
      if (!directive.contains("org.jooq")) {
        expected.add(directive);
      }
    }
    expected.addAll(READ_BY_JOOQ);
    assertThat(compiled).contains("requires org.jooq");
    assertThat(published).isEqualTo(expected).noneMatch(d -> d.contains("jooq"));
  }

  private static Set<String> directives(Path file) throws IOException {
    String source = Files.readString(file).replaceAll("(?s)/\\*.*?\\*/", "");
    source = source.replaceAll("//[^\n]*", "");
    Set<String> found = new TreeSet<>();
    Matcher m = DIRECTIVE.matcher(source);
    while (m.find()) {
      found.add(m.group(1).replaceAll("\\s+", " ").strip());
    }
    return found;
  }
}
