package dev.fencing.testkit.property;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.process.WorkerProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Worker processes kept across interleavings, guarded by the pool's lock so that a clean-up never
 * races an interleaving that is still starting workers, so that a property run pays a JVM start per
 * crash, not per try. From the first crash on, two spares are started in the background, one after
 * the other, to replace crashed workers quickly: an interleaving (or a shrinker rerunning it) with
 * two crashes in a row does not wait for a JVM start. Before it, none are: a pool whose
 * interleavings never crash a worker (a replayed counterexample, a short suite) starts only the
 * workers it uses.
 */
final class WorkerPool implements AutoCloseable {

  private final Class<? extends FencingBackend> backend;
  private final PostgresFixture.Database database;
  private final String schema;
  private final List<WorkerProcess> live = new ArrayList<>();
  private final ExecutorService starter =
      Executors.newSingleThreadExecutor(
          Thread.ofPlatform().name("worker-pool-starter").daemon().factory());
  private final List<Long> pids = java.util.Collections.synchronizedList(new ArrayList<>());
  private static final int SPARES = 2;
  private final java.util.ArrayDeque<Future<WorkerProcess>> spares = new java.util.ArrayDeque<>();
  private final java.util.concurrent.atomic.AtomicInteger started =
      new java.util.concurrent.atomic.AtomicInteger();
  private boolean crashed;

  WorkerPool(
      Class<? extends FencingBackend> backend, PostgresFixture.Database database, String schema) {
    this.backend = backend;
    this.database = database;
    this.schema = schema;
  }

  /** Returns the process in slot {@code index}, starting processes up to it as needed. */
  synchronized WorkerProcess get(int index) {
    while (live.size() <= index) {
      live.add(takeSpare());
    }
    WorkerProcess worker = live.get(index);
    if (!worker.isAlive()) {
      worker.close();
      worker = takeSpare();
      live.set(index, worker);
    }
    return worker;
  }

  /** Kills slot {@code index}'s process with SIGKILL and puts a fresh one in its place. */
  synchronized WorkerProcess crashAndReplace(int index) {
    WorkerProcess dead = get(index);
    crashed = true;
    dead.crash();
    dead.close();
    WorkerProcess fresh = takeSpare();
    live.set(index, fresh);
    return fresh;
  }

  /** Returns every process this pool started that is still running, spare included. */
  synchronized List<WorkerProcess> processes() {
    List<WorkerProcess> all = new ArrayList<>(live);
    for (Future<WorkerProcess> spare : spares) {
      if (spare.isDone() && !spare.isCancelled()) {
        try {
          all.add(spare.get());
        } catch (InterruptedException | ExecutionException ignored) {
          // a spare that failed to start is no process
        }
      }
    }
    return all;
  }

  /** Returns the process ids of every worker this pool started, alive or not. */
  List<Long> pidsStarted() {
    synchronized (pids) {
      return List.copyOf(pids);
    }
  }

  /** Returns how many worker JVMs were started so far. */
  int started() {
    return started.get();
  }

  /** Kills every process, live and spare. The pool may be used again: it starts new ones. */
  synchronized void killAll() {
    List<WorkerProcess> all = new ArrayList<>(live);
    live.clear();
    all.forEach(WorkerProcess::close);
    while (!spares.isEmpty()) {
      Future<WorkerProcess> pending = spares.poll();
      try {
        pending.get().close();
      } catch (InterruptedException | ExecutionException | RuntimeException ignored) {
        // nothing started, nothing to kill
      }
    }
  }

  @Override
  public synchronized void close() {
    killAll();
    starter.shutdownNow();
  }

  private synchronized WorkerProcess takeSpare() {
    if (spares.isEmpty()) {
      spares.add(starter.submit(this::start));
    }
    Future<WorkerProcess> next = spares.poll();
    while (crashed && spares.size() < SPARES) {
      spares.add(starter.submit(this::start));
    }
    try {
      return next.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted starting a worker", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a worker process did not start: " + e.getCause(), e);
    }
  }

  private WorkerProcess start() {
    if (started.get() == 0) {
      // before the first: no worker of an interleaving is the one whose classes are archived
      WorkerProcess.warmUp(backend, database, schema);
    }
    WorkerProcess process =
        WorkerProcess.start("worker-" + started.incrementAndGet(), backend, database, schema);
    pids.add(process.pid());
    return process;
  }
}
