package dev.fencing.cli.internal;

import dev.fencing.cli.ExitCode;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.PostgresFencing.SchemaStatus;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/** {@code fencing schema}: the schema's version and engine, and whether this version runs on it. */
@Command(
    name = "schema",
    mixinStandardHelpOptions = true,
    description = {
      "Show the schema's version, the oldest version whose library may run on it, its engine,",
      "and whether this fencing may run on it. Exit code 4 when it may not (or is not installed)."
    })
public final class SchemaCommand extends DatabaseCommand {

  @Override
  public void run() {
    SchemaStatus status = status(database.fencing());
    PrintWriter out = out();
    print(out, status);
    if (!status.tables()) {
      throw new CliException(
          ExitCode.NO_SCHEMA,
          "schema "
              + status.schema()
              + " has no fencing tables; install them with `fencing migrate`, or with"
              + " PostgresFencing.builder(dataSource).schema(\""
              + status.schema()
              + "\").build()");
    }
    if (status.refusal() != null) {
      throw new CliException(ExitCode.NO_SCHEMA, status.refusal());
    }
  }

  static SchemaStatus status(PostgresFencing fencing) {
    return DatabaseOptions.reported(fencing::schemaStatus);
  }

  static void print(PrintWriter out, SchemaStatus status) {
    TextTable table = new TextTable("SCHEMA", "VERSION", "COMPATIBLE FROM", "ENGINE", "NEEDED");
    table.row(
        status.schema(),
        status.version() == 0 ? (status.tables() ? "none" : "not installed") : status.version(),
        status.version() == 0 ? "–" : status.compatibleFrom(),
        status.engine().map(Enum::name).orElse("–"),
        status.needed());
    table.print(out);
    out.flush();
  }
}
