package dev.fencing.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Every public type a published module exports says in its javadoc since which release it is there
 * ({@code @since 0.1} for the first): what a user may rely on, and what the API-compatibility check
 * (japicmp against the last release) guards from then on. Reads each type's source beside the
 * compiled main code.
 */
@AnalyzeClasses(locations = MainCode.class, importOptions = MainCode.class)
class SinceTest {

  private static final Pattern SINCE = Pattern.compile("\\n\\s*\\*\\s*@since \\d+\\.\\d+");

  @ArchTest
  static void everyExportedPublicTypeSaysSinceWhichRelease(JavaClasses classes) {
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (String module :
        Stream.concat(PublicApiTest.PUBLISHED.stream(), Stream.of("fencing-testkit")).toList()) {
      for (String pkg : PublicApiTest.exportedPackages(module, classes)) {
        for (JavaClass type : classes) {
          if (!type.getPackageName().equals(pkg)
              || !type.isTopLevelClass()
              || !type.getModifiers().contains(JavaModifier.PUBLIC)) {
            continue;
          }
          checked++;
          if (!says(module, type)) {
            missing.add(module + ": " + type.getName());
          }
        }
      }
    }
    assertThat(checked).as("public types checked").isGreaterThan(100);
    assertThat(missing).as("public types without @since in their javadoc").isEmpty();
  }

  /** Whether the javadoc just before the type's declaration has an {@code @since} tag. */
  private static boolean says(String module, JavaClass type) {
    Path source =
        MainCode.REPOSITORY
            .resolve(module)
            .resolve("src/main/java")
            .resolve(type.getName().replace('.', '/') + ".java");
    String text;
    try {
      text = Files.readString(source);
    } catch (IOException e) {
      throw new UncheckedIOException("no source for " + type.getName() + " at " + source, e);
    }
    Matcher declaration =
        Pattern.compile(
                "\\npublic\\s+(?:[a-z-]+\\s+)*(?:class|interface|record|enum|@interface)\\s+"
                    + Pattern.quote(type.getSimpleName())
                    + "\\b")
            .matcher(text);
    if (!declaration.find()) {
      return false;
    }
    String before = text.substring(0, declaration.start());
    int open = before.lastIndexOf("/**");
    return open >= 0 && SINCE.matcher(before.substring(open)).find();
  }
}
