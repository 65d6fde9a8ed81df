package dev.fencing.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The published library modules are named in four places that nothing derives from one another: the
 * BOM, {@link PublicApiTest#PUBLISHED} (with the test kit), the root pom's {@code
 * fencing.baseline.modules} (what the API-compatibility check's baseline builds) and each module's
 * own switch for the check ({@code fencing.japicmp.skip}). A module added to the BOM but not to the
 * check would be published unchecked; this keeps the four the same set.
 */
class ApiCheckCoversThePublishedModulesTest {

  /** In the BOM, but an application: no API to compare. */
  private static final String APPLICATION = "fencing-cli";

  @Test
  void theBomTheApiTestsTheBaselineAndTheModulesNameTheSameLibraries() throws IOException {
    Path root = MainCode.REPOSITORY;
    Set<String> bom = new TreeSet<>();
    Matcher artifact =
        Pattern.compile("<artifactId>(fencing-[a-z-]+)</artifactId>")
            .matcher(Files.readString(root.resolve("fencing-bom/pom.xml")));
    while (artifact.find()) {
      bom.add(artifact.group(1));
    }
    bom.remove("fencing-bom");
    bom.remove(APPLICATION);

    Matcher baseline =
        Pattern.compile("<fencing.baseline.modules>([^<]+)</fencing.baseline.modules>")
            .matcher(Files.readString(root.resolve("pom.xml")));
    assertThat(baseline.find()).as("fencing.baseline.modules in the root pom").isTrue();
    Set<String> baselineModules = new TreeSet<>(List.of(baseline.group(1).strip().split(",")));

    Set<String> checked;
    try (Stream<Path> modules = Files.list(root)) {
      checked =
          modules
              .filter(m -> Files.isRegularFile(m.resolve("pom.xml")))
              .filter(
                  m -> {
                    try {
                      return Files.readString(m.resolve("pom.xml"))
                          .contains("<fencing.japicmp.skip>${japicmp.skip}</fencing.japicmp.skip>");
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  })
              .map(m -> m.getFileName().toString())
              .collect(Collectors.toCollection(TreeSet::new));
    }

    Set<String> apiTested = new TreeSet<>(PublicApiTest.PUBLISHED);
    apiTested.add("fencing-testkit");

    assertThat(bom).hasSizeGreaterThan(10);
    assertThat(baselineModules).as("fencing.baseline.modules").isEqualTo(bom);
    assertThat(checked).as("modules that turn the API check on").isEqualTo(bom);
    assertThat(apiTested).as("PublicApiTest.PUBLISHED and the test kit").isEqualTo(bom);
  }
}
