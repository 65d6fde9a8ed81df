/**
 * The fencing command line: {@link dev.fencing.cli.FencingCli} is its front door and main class.
 */
@NullMarked
package dev.fencing.cli;

import org.jspecify.annotations.NullMarked;
