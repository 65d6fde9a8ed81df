package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.ha.SynchronousModeCost.Settings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The section splice and the settings of {@link SynchronousModeCostTest}, without a cluster. */
class SynchronousModeCostReportTest {

  private static final String TITLE = SynchronousModeCostReport.TITLE;
  private static final String NEW = TITLE + "\n\nnew table\n";

  @Test
  void replacesTheSectionBetweenOthersAndKeepsTheRestByteForByte() {
    String before = "# Benchmarks\n\n## One\n\nkept  \r\n\n";
    String after = "## Two\n\n### not a section title\n\nkept too\n";
    String page = before + TITLE + "\n\nold table\n\n### Every round\n\nold rows\n\n" + after;

    assertThat(SynchronousModeCostReport.replaceSection(page, NEW))
        .isEqualTo(before + NEW + "\n" + after);
  }

  @Test
  void replacesTheLastSectionUpToTheEnd() {
    String page = "# Benchmarks\n\n" + TITLE + "\n\nold\n### Every round\nold rows\n";

    assertThat(SynchronousModeCostReport.replaceSection(page, NEW))
        .isEqualTo("# Benchmarks\n\n" + NEW);
  }

  @Test
  void appendsTheSectionWhenThePageHasNone() {
    assertThat(SynchronousModeCostReport.replaceSection("# B\n\n## Other\n\nx\n", NEW))
        .isEqualTo("# B\n\n## Other\n\nx\n\n" + NEW);
    assertThat(SynchronousModeCostReport.replaceSection("# B", NEW)).isEqualTo("# B\n\n" + NEW);
    assertThat(SynchronousModeCostReport.replaceSection("", NEW)).isEqualTo(NEW);
  }

  @Test
  void aTitleThatOnlyBeginsTheSameIsNotTheSection() {
    String page = "# B\n\n" + TITLE + " (old)\n\nother\n";

    assertThat(SynchronousModeCostReport.replaceSection(page, NEW)).isEqualTo(page + "\n" + NEW);
  }

  @Test
  void replacingTwiceGivesWhatReplacingOnceGave() {
    String page = "# B\n\n## One\n\nx\n\n" + TITLE + "\n\nold\n\n## Two\n\ny\n";
    String once = SynchronousModeCostReport.replaceSection(page, NEW);

    assertThat(SynchronousModeCostReport.replaceSection(once, NEW)).isEqualTo(once);
  }

  @Test
  void settingsDefaultToTheCiForm() {
    Settings settings = Settings.from(name -> null);

    assertThat(settings).isEqualTo(new Settings(100, 20, 1, List.of(1), false, Optional.empty()));
  }

  @Test
  void settingsReadEveryProperty() {
    Map<String, String> properties =
        Map.of(
            "fencing.synccost.cycles", "3000",
            "fencing.synccost.warmup", "0",
            "fencing.synccost.rounds", "3",
            "fencing.synccost.threads", "1, 8",
            "fencing.synccost.fsync", "on",
            "fencing.synccost.report", "../docs/BENCHMARKS.md");

    Settings settings = Settings.from(properties::get);

    assertThat(settings)
        .isEqualTo(
            new Settings(
                3000, 0, 3, List.of(1, 8), true, Optional.of(Path.of("../docs/BENCHMARKS.md"))));
    assertThat(settings.options())
        .isEqualTo(
            "-Dfencing.synccost.cycles=3000 -Dfencing.synccost.warmup=0"
                + " -Dfencing.synccost.rounds=3 -Dfencing.synccost.threads=1,8"
                + " -Dfencing.synccost.fsync=on");
  }

  @Test
  void badSettingsAreRefusedNamingThePropertyAndTheValue() {
    assertThatThrownBy(() -> Settings.from(only("threads", "1,x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fencing.synccost.threads must be a whole number, but was 'x'");
    assertThatThrownBy(() -> Settings.from(only("threads", "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fencing.synccost.threads must be between 1 and 64, but was 0");
    assertThatThrownBy(() -> Settings.from(only("cycles", "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fencing.synccost.cycles must be between 1 and 1000000, but was 0");
    assertThatThrownBy(() -> Settings.from(only("warmup", "-1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fencing.synccost.warmup must be between 0 and 1000000, but was -1");
    assertThatThrownBy(() -> Settings.from(only("rounds", "many")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fencing.synccost.rounds must be a whole number, but was 'many'");
    assertThatThrownBy(() -> Settings.from(only("fsync", "yes")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fencing.synccost.fsync must be on or off, but was 'yes'");
  }

  private static UnaryOperator<String> only(String name, String value) {
    return property -> property.equals(Settings.PREFIX + name) ? value : null;
  }
}
