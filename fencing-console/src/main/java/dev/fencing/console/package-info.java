/**
 * The operator's web console: {@link dev.fencing.console.FencingConsole} builds its servlet, {@link
 * dev.fencing.console.ConsoleServer} serves it on its own port.
 */
@NullMarked
package dev.fencing.console;

import org.jspecify.annotations.NullMarked;
