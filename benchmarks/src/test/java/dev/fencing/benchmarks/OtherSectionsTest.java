package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

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
  void aMissingFileKeepsNothing(@TempDir Path dir) throws Exception {
    assertThat(OtherSections.kept(dir.resolve("none.md"), "## A\n")).isEmpty();
  }
}
