package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A short run of {@link ConsoleBenchmark} on both engines, to prove it fills, serves and times
 * every page; and {@link PageTimer}'s refusal of an answer that is not 200. Nothing here asserts a
 * time: only that every page has a row with numbers that make sense.
 */
class ConsoleBenchmarkSmokeTest {

  private static final Pattern ROW =
      Pattern.compile(
          "\\| (update|append|update \\+ index|append \\+ index) \\| `([^`]+)` \\| ([0-9.]+) \\| ([0-9.]+) \\| ([0-9.]+) \\|"
              + " ([0-9.]+) \\|");

  @Test
  void aSmallRunTimesEveryPageOnBothEngines() throws Exception {
    Path out = Path.of("target", "bench", "console-smoke.md");
    Files.deleteIfExists(out);
    ConsoleBenchmark.main(
        new String[] {
          "--finished",
          "400",
          "--pending",
          "120",
          "--running",
          "8",
          "--chunk",
          "150",
          "--warmup",
          "1",
          "--requests",
          "2",
          "--out",
          out.toString()
        });
    String report = Files.readString(out);
    assertThat(report).startsWith(ConsoleBenchmark.TITLE).contains("Machine: ");
    // --proposed-index, a variant of the fill, is left to the long run: the smoke run stays short
    for (String engine : List.of("update", "append")) {
      List<Matcher> rows =
          report
              .lines()
              .map(ROW::matcher)
              .filter(m -> m.matches() && m.group(1).equals(engine))
              .toList();
      assertThat(rows.stream().map(m -> m.group(2)))
          .as(engine)
          .startsWith("/", "/queues.json", "/jobs", "/jobs?state=failed")
          .contains("/jobs?queue=email&state=pending", "/schedules", "/ownerships")
          .anyMatch(p -> p.startsWith("/jobs?key=order-"))
          .anyMatch(p -> p.matches("/jobs/[0-9]+"))
          .endsWith(ConsoleBenchmark.CHART_READ);
      for (Matcher row : rows) {
        assertThat(Double.parseDouble(row.group(3))).as(row.group()).isPositive();
        assertThat(Double.parseDouble(row.group(5)))
            .as(row.group())
            .isGreaterThanOrEqualTo(Double.parseDouble(row.group(4)));
        assertThat(Double.parseDouble(row.group(6))).as(row.group()).isNotNegative();
      }
    }
  }

  @Test
  void anAnswerThatIsNot200FailsTheRun() throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          boolean ok =
              ("Bearer " + "t".repeat(32))
                      .equals(exchange.getRequestHeaders().getFirst("Authorization"))
                  && exchange.getRequestURI().getPath().equals("/ok");
          byte[] body = (ok ? "fine" : "no").getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(ok ? 200 : 500, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    try {
      URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
      PageTimer timer = new PageTimer(base, "t".repeat(32));
      assertThat(timer.time("/ok", 1, 3).latencies().count()).isEqualTo(3);
      assertThatThrownBy(() -> timer.time("/broken", 0, 1))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("GET /broken answered 500, not 200");
      assertThatThrownBy(() -> new PageTimer(base, "u".repeat(32)).time("/ok", 0, 1))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("answered 500");
    } finally {
      server.stop(0);
    }
  }
}
