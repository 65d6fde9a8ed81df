/**
 * A test kit for fenced job queues: a PostgreSQL fixture, worker processes driven as puppets with
 * real signals, and the zombie scenario.
 */
@NullMarked
package dev.fencing.testkit;

import org.jspecify.annotations.NullMarked;
