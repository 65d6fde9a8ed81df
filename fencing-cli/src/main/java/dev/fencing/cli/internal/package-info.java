/** The commands of the CLI, their options and output; not an API. */
@NullMarked
package dev.fencing.cli.internal;

import org.jspecify.annotations.NullMarked;
