package dev.fencing.cli.internal;

import dev.fencing.cli.ExitCode;
import dev.fencing.postgres.admin.AdminChange;
import java.io.PrintWriter;

/** What requeue and fail print, and the exit code a refusal or an unknown job gets. */
final class Changes {

  private Changes() {}

  static void report(AdminChange change, String done, String schema, PrintWriter out) {
    switch (change) {
      case AdminChange.Changed c -> {
        out.println(done);
        out.println();
        JobPrinter.print(c.job(), schema, out);
      }
      case AdminChange.Refused r -> throw new CliException(ExitCode.REFUSED, r.reason());
      case AdminChange.NotFound n -> throw new CliException(ExitCode.UNKNOWN_JOB, n.message());
    }
  }
}
