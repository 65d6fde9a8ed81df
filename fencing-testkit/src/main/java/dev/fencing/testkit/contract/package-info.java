/**
 * The rules every backend keeps, as abstract JUnit tests a backend's test subclasses once: {@link
 * dev.fencing.testkit.contract.FencedQueueContract}, {@link
 * dev.fencing.testkit.contract.FencedReceiverContract} and {@link
 * dev.fencing.testkit.contract.ResourceOwnershipContract}.
 *
 * <p>No optional dependency: the receiver and ownership contracts need nothing beyond the test kit;
 * the queue contract takes its schema from {@link dev.fencing.testkit.db}, so it needs a PostgreSQL
 * by that package's rule ({@code FENCING_JDBC_URL}, or the optional dependency of one of its
 * routes).
 */
@NullMarked
package dev.fencing.testkit.contract;

import org.jspecify.annotations.NullMarked;
