package dev.fencing.cli.internal;

import picocli.CommandLine.Parameters;

/** A command on one job, named by its id. */
abstract class JobIdCommand extends DatabaseCommand {

  @Parameters(paramLabel = "<id>", description = "the job's id")
  long id;
}
