package dev.fencing.cli.internal;

import dev.fencing.SchemaVersionException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.cli.ExitCode;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.PostgresFencing.SchemaStatus;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/** {@code fencing migrate}: applies the migration scripts the schema lacks. */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Bring the schema to the version this fencing needs: apply the migration scripts it lacks,",
      "each whole in one transaction, safe while workers of this version and the previous run",
      "(docs/UPGRADING.md). Creates the schema and its tables when there are none."
    })
public final class MigrateCommand implements Runnable {

  @Mixin DatabaseOptions database;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    PostgresFencing reader = database.fencing();
    SchemaStatus before = SchemaCommand.status(reader);
    PrintWriter out = spec.commandLine().getOut();
    try {
      database.installing().build();
    } catch (SchemaVersionException e) {
      throw new CliException(ExitCode.NO_SCHEMA, e.getMessage());
    } catch (StoreUnavailableException e) {
      throw new CliException(ExitCode.UNREACHABLE, e.getMessage());
    }
    SchemaStatus after = SchemaCommand.status(reader);
    if (after.version() == before.version()) {
      out.println("schema " + after.schema() + " is at version " + after.version() + " already");
    } else {
      out.println(
          "schema "
              + after.schema()
              + ": "
              + (before.version() == 0
                  ? before.tables() ? "from no version (a build from before versions)" : "new"
                  : "from version " + before.version())
              + " to version "
              + after.version());
    }
    SchemaCommand.print(out, after);
  }
}
