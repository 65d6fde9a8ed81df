package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.testkit.PostgresFixture;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Several worker processes on one queue, each a {@code FencedRuntime}: the total rate of committed
 * jobs, measured over the same wall-clock window in every process.
 */
final class ProcessScaling {

  /** One measurement: {@code processes} processes of {@code threads} handler threads each. */
  record Row(int processes, int threads, int batch, double jobsPerSecond) {}

  private static final String SCHEMA = "bench_processes";
  private static final String QUEUE = "bench";

  private ProcessScaling() {}

  static Row run(PostgresFixture.Database db, int processes, int threads, int batch, long millis)
      throws IOException, InterruptedException {
    BenchDatabase.freshQueueSchema(db, SCHEMA);
    try (HikariDataSource ds = BenchDatabase.pool(db, 2)) {
      BenchDatabase.seed(ds, SCHEMA, QUEUE, (int) Math.max(20_000, millis * 60));
    }
    List<Process> started = new ArrayList<>();
    try {
      for (int p = 0; p < processes; p++) {
        started.add(start(db, "proc" + p, threads, batch, millis));
      }
      List<BufferedReader> outputs = new ArrayList<>();
      for (Process process : started) {
        BufferedReader out =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        expect(out, "ready");
        outputs.add(out);
      }
      for (Process process : started) {
        Writer in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        in.write("go\n");
        in.flush();
      }
      long committed = 0;
      for (BufferedReader out : outputs) {
        String done = expect(out, "done ");
        committed += Long.parseLong(done.substring("done ".length()).trim());
      }
      return new Row(processes, threads, batch, committed * 1000.0 / millis);
    } finally {
      started.forEach(Process::destroyForcibly);
    }
  }

  private static Process start(
      PostgresFixture.Database db, String owner, int threads, int batch, long millis)
      throws IOException {
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Dorg.jooq.no-logo=true",
            "-Dorg.jooq.no-tips=true",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp",
            System.getProperty("java.class.path"),
            PoolWorkerMain.class.getName(),
            db.jdbcUrl(),
            db.user(),
            db.password(),
            SCHEMA,
            QUEUE,
            owner,
            Integer.toString(threads),
            Integer.toString(batch),
            Long.toString(millis));
    return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  private static String expect(BufferedReader out, String prefix) throws IOException {
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith(prefix)) {
        return line;
      }
    }
    throw new IOException("a worker process ended before printing '" + prefix + "'");
  }
}
