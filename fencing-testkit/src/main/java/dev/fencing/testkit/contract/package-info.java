/**
 * The rules every backend keeps, as abstract JUnit tests a backend's test subclasses once: {@link
 * dev.fencing.testkit.contract.FencedQueueContract} (the worker's), {@link
 * dev.fencing.testkit.contract.JobProducerContract} (the producer's), {@link
 * dev.fencing.testkit.contract.FencedReceiverContract} and {@link
 * dev.fencing.testkit.contract.ResourceOwnershipContract}.
 *
 * <p>No optional dependency: the receiver and ownership contracts need nothing beyond the test kit;
 * the queue contracts take their schema from {@link dev.fencing.testkit.db}, so they need a
 * PostgreSQL by that package's rule ({@code FENCING_JDBC_URL}, or the optional dependency of one of
 * its routes).
 */
@NullMarked
package dev.fencing.testkit.contract;

import org.jspecify.annotations.NullMarked;
