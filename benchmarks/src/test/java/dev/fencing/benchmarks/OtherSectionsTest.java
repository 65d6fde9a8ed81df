package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OtherSectionsTest {

  @Test
  void sectionsTheRunDoesNotWriteAreKeptInOrder(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("B.md");
    Files.writeString(
        file,
        "# Benchmarks\n\nold intro\n\n## Targets\n\nold\n\n## Wake-ups\n\nw\n\n### sub\n\ns\n\n"
            + "## End to end\n\nold\n\n## Retention\n\nr\n");
    String report = "# Benchmarks\n\nnew\n\n## End to end\n\nnew\n\n## Targets\n\nnew\n";

    assertThat(OtherSections.kept(file, report))
        .isEqualTo("\n## Wake-ups\n\nw\n\n### sub\n\ns\n\n## Retention\n\nr\n");
  }

  @Test
  void aSectionReplacesTheOneOfItsTitleInPlace(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("B.md");
    Files.writeString(
        file, "# Benchmarks\n\nintro\n\n## A\n\na\n\n## E\n\nold\n\n### sub\n\n## C\n\nc\n");

    assertThat(OtherSections.replaced(file, "## E\n\nnew\n"))
        .isEqualTo("# Benchmarks\n\nintro\n\n## A\n\na\n\n## E\n\nnew\n\n## C\n\nc\n");
  }

  @Test
  void aSectionOfANewTitleGoesAtTheEnd(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("B.md");
    Files.writeString(file, "# Benchmarks\n\n## A\n\na\n");

    assertThat(OtherSections.replaced(file, "## E\n\nnew\n"))
        .isEqualTo("# Benchmarks\n\n## A\n\na\n\n## E\n\nnew\n");
    assertThat(OtherSections.replaced(dir.resolve("none.md"), "## E\n\nnew\n"))
        .isEqualTo("## E\n\nnew\n");
  }

  @Test
  void aSectionWithoutATitleIsRefused(@TempDir Path dir) {
    assertThatThrownBy(() -> OtherSections.replaced(dir.resolve("B.md"), "### E\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("section must start with a '## ' title, but starts with '### E'");
  }

  @Test
  void aMissingFileKeepsNothing(@TempDir Path dir) throws Exception {
    assertThat(OtherSections.kept(dir.resolve("none.md"), "## A\n")).isEmpty();
  }
}
