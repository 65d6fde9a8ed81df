/**
 * Other JVMs as puppets: {@link dev.fencing.testkit.process.JavaProcess} runs any main class, its
 * output awaited line by line, with real {@code SIGSTOP}/{@code SIGCONT}/{@code SIGKILL}; {@link
 * dev.fencing.testkit.process.WorkerProcess} and {@link dev.fencing.testkit.process.PuppetProducer}
 * are a worker and a producer driven that way over the backend a test names ({@link
 * dev.fencing.testkit.process.FencingBackend}, {@link
 * dev.fencing.testkit.process.OwnershipBackend}); {@link
 * dev.fencing.testkit.process.ZombieScenario} plays the seed's zombie orderings with them. {@link
 * dev.fencing.testkit.process.Ports#freePort()} gives the servers a test starts their ports, and
 * {@link dev.fencing.testkit.process.ServerProcess} runs them (etcd, ZooKeeper, PgBouncer, Patroni,
 * any program): a log file, a bounded wait until ready, stop, freeze and thaw by pid.
 *
 * <p>No optional dependency; the worker processes reach PostgreSQL at an address the caller gives.
 */
@NullMarked
package dev.fencing.testkit.process;

import org.jspecify.annotations.NullMarked;
