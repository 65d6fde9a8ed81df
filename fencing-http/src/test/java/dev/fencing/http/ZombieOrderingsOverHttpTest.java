package dev.fencing.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.JavaProcess;
import dev.fencing.testkit.process.ZombieScenario;
import dev.fencing.testkit.process.ZombieScenario.Ordering;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The seed's two orderings with the receiver behind HTTP in a process of its own (Jetty,
 * HMAC-signed requests, the PostgreSQL receiver behind it): the zombie and the new owner are two
 * more JVMs, and the table ends as the seed says.
 */
@FencingDatabase
class ZombieOrderingsOverHttpTest {

  private static final String SCHEMA = "fencing_demo_http";
  private static final String RECEIVER_SCHEMA = "fencing_demo_http_receiver";

  @ParameterizedTest
  @EnumSource(Ordering.class)
  void bothOrderingsEndAsTheSeedsTable(Ordering ordering, PostgresFixture.Database db)
      throws Exception {
    db.recreateSchema(RECEIVER_SCHEMA);
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    String hex = HexFormat.of().formatHex(key);
    try (JavaProcess receiver =
        JavaProcess.start(
            "http receiver",
            HttpReceiverMain.class,
            List.of(db.jdbcUrl(), db.user(), db.password(), RECEIVER_SCHEMA, hex))) {
      int listening =
          receiver.await(0, line -> line.startsWith("listening "), Duration.ofSeconds(60));
      String uri = receiver.lines().get(listening).substring("listening ".length());
      Files.write(HttpBackend.addressFile(SCHEMA), List.of(uri, hex));
      ZombieScenario.Report report =
          new ZombieScenario(db, HttpBackend.class, SCHEMA, Duration.ofMillis(800)).run(ordering);
      report.timeline().forEach(System.out::println);
      System.out.println("receiver (pid " + receiver.pid() + ") at " + uri + ": " + report.row());
      assertThat(report.row()).isEqualTo(ZombieScenario.expected(ordering));
      assertThat(report.timeline())
          .anySatisfy(line -> assertThat(line).contains("SIGSTOP"))
          .anySatisfy(
              line ->
                  assertThat(line)
                      .startsWith("zombie: complete")
                      .endsWith("refused Superseded epoch=1 current=2"));
    } finally {
      Files.deleteIfExists(HttpBackend.addressFile(SCHEMA));
    }
  }
}
