package dev.fencing.cli.internal;

import java.io.PrintWriter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command on a fencing schema: the database options every such command takes, and its output. */
abstract class DatabaseCommand implements Runnable {

  @Mixin DatabaseOptions database;

  @Spec CommandSpec spec;

  /** Where the command prints. */
  final PrintWriter out() {
    return spec.commandLine().getOut();
  }
}
