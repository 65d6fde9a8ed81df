package dev.fencing.cli.internal;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.PostgresFencing.SchemaStatus;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/** {@code fencing migrate}: applies the migration scripts the schema lacks. */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Bring the schema to the version this fencing needs: apply the migration scripts it lacks,",
      "each whole in one transaction, safe while workers of this version and the previous run",
      "(docs/UPGRADING.md). Creates the schema and its tables when there are none."
    })
public final class MigrateCommand extends DatabaseCommand {

  @Override
  public void run() {
    PostgresFencing reader = database.fencing();
    SchemaStatus before = SchemaCommand.status(reader);
    PrintWriter out = out();
    DatabaseOptions.reported(database.installing()::build);
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
