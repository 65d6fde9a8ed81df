package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The metadata IDEs complete and explain fencing.* from: the configuration processor copied javadoc
 * tags verbatim ({@code {@code ...}} in the descriptions), and the per-queue keys, under a map, had
 * none (issue 32).
 */
class ConfigurationMetadataTest {

  private static final Path METADATA =
      Path.of("target/classes/META-INF/spring-configuration-metadata.json");

  @Test
  void noDescriptionCarriesAJavadocTag() throws IOException {
    List<String> descriptions = descriptions(Files.readString(METADATA, StandardCharsets.UTF_8));
    assertThat(descriptions).hasSizeGreaterThan(20).noneMatch(d -> d.contains("{@"));
  }

  @Test
  void thePerQueueKeysAreDescribedAndEachHasADefaultsProperty() throws IOException {
    String json = Files.readString(METADATA, StandardCharsets.UTF_8);
    assertThat(description(json, "fencing.queues"))
        .contains(
            "fencing.queues.(name).concurrency, .lease, .heartbeat, .batch-size, .prefetch,"
                + " .retry-delay and .min-lease-left");
    for (String key :
        List.of(
            "concurrency",
            "lease",
            "heartbeat",
            "batch-size",
            "prefetch",
            "retry-delay",
            "min-lease-left")) {
      assertThat(description(json, "fencing.queue-defaults." + key)).as(key).isNotBlank();
    }
  }

  /** The description of the property {@code name}, or null when it has none. */
  private static String description(String json, String name) {
    Matcher m =
        Pattern.compile(
                "\"name\"\\s*:\\s*\""
                    + Pattern.quote(name)
                    + "\",[^}]*?\"description\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"")
            .matcher(json);
    return m.find() ? m.group(1) : null;
  }

  private static List<String> descriptions(String json) {
    Matcher m = Pattern.compile("\"description\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
    List<String> all = new ArrayList<>();
    while (m.find()) {
      all.add(m.group(1));
    }
    return all;
  }
}
