package example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.PostgresFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Runs the README's quick start against a real PostgreSQL, as a user's project would. */
class QuickStartTest {

  @Test
  void theReadmeSampleEnqueuesClaimsAndCommitsTypedJobs() {
    PostgresFixture.Database db = PostgresFixture.urlOrEmbedded();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = System.out;
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      QuickStart.run(db.dataSource());
    } finally {
      System.setOut(out);
    }
    String line = printed.toString(StandardCharsets.UTF_8).strip();
    System.out.println("quick start printed: " + line);
    assertThat(line.lines().toList())
        .satisfiesExactly(
            claimed ->
                assertThat(claimed)
                    .matches(
                        "SendEmail\\[to=ada@example.com] claimed at epoch 1:"
                            + " Accepted\\[key=\\d+, epoch=epoch 1, repeat=false]"),
            result -> assertThat(result).matches("job \\d+: Sent\\[epoch=1]"));
  }
}
