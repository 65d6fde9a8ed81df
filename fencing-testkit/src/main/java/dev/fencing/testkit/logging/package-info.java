/**
 * What the code under test logged: {@link dev.fencing.testkit.logging.CapturedLogs} reads one
 * logger's lines while a test runs.
 *
 * <p>Optional dependency: Logback ({@code ch.qos.logback:logback-classic}) as the test class path's
 * SLF4J binding.
 */
@NullMarked
package dev.fencing.testkit.logging;

import org.jspecify.annotations.NullMarked;
