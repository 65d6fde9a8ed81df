package dev.fencing.testkit.property;

/**
 * One step of an interleaving, for workers ({@link Interleaving}) and producers ({@link
 * ProducerInterleaving}) alike. What happens to a process or to time is common to both: {@link
 * Stall}, {@link Resume}, {@link Crash}, {@link LeasesRunOut}. What a process does is its domain's:
 * a {@link WorkerAction} on the job queue, a {@link ProducerAction} on a resource. Processes are
 * numbered from 0.
 *
 * @since 0.1
 */
public sealed interface Step {

  /** The process this step is about, from 0; 0 for {@link LeasesRunOut}. */
  int actor();

  /** What a worker does with the queue; {@code lease} picks one it holds, oldest first. */
  sealed interface WorkerAction extends Step permits Claim, Renew, Deliver, Complete, Fail {
    /** The worker, from 0. */
    int worker();

    @Override
    default int actor() {
      return worker();
    }
  }

  /** What a producer does with a resource. */
  sealed interface ProducerAction extends Step permits Acquire, Extend, Send, Release {
    /** The producer, from 0. */
    int producer();

    /** The resource, from 0. */
    int resource();

    @Override
    default int actor() {
      return producer();
    }
  }

  /** Freezes the process with {@code SIGSTOP}; its later steps wait until it resumes. */
  record Stall(int actor) implements Step {
    @Override
    public String toString() {
      return "w" + actor + " stalls (SIGSTOP)";
    }
  }

  /** Thaws the process with {@code SIGCONT}; it carries on with what it was told. */
  record Resume(int actor) implements Step {
    @Override
    public String toString() {
      return "w" + actor + " resumes (SIGCONT)";
    }
  }

  /** Kills the process with {@code SIGKILL}; a fresh process holding nothing replaces it. */
  record Crash(int actor) implements Step {
    @Override
    public String toString() {
      return "w" + actor + " crashes (SIGKILL)";
    }
  }

  /** Time passes: waits until every short lease granted so far has run out. */
  record LeasesRunOut() implements Step {
    @Override
    public int actor() {
      return 0;
    }

    @Override
    public String toString() {
      return "time passes: every short lease runs out";
    }
  }

  /** Claims one job, with a short lease (waited out by {@link LeasesRunOut}) or a long one. */
  record Claim(int worker, boolean shortLease) implements WorkerAction {
    @Override
    public String toString() {
      return "w" + worker + " claims (" + (shortLease ? "short" : "long") + " lease)";
    }
  }

  /** Extends a held lease by its original length. */
  record Renew(int worker, int lease) implements WorkerAction {
    @Override
    public String toString() {
      return "w" + worker + " renews lease #" + lease;
    }
  }

  /** Delivers the job's result to the receiver, with the lease's job id and epoch. */
  record Deliver(int worker, int lease) implements WorkerAction {
    @Override
    public String toString() {
      return "w" + worker + " delivers under lease #" + lease;
    }
  }

  /** Commits the job's result (delivering it first if this lease has not delivered yet). */
  record Complete(int worker, int lease) implements WorkerAction {
    @Override
    public String toString() {
      return "w" + worker + " completes under lease #" + lease;
    }
  }

  /** Records a failure; the job becomes claimable again at once, until its attempts run out. */
  record Fail(int worker, int lease) implements WorkerAction {
    @Override
    public String toString() {
      return "w" + worker + " fails under lease #" + lease;
    }
  }

  /** The producer acquires the resource, with a short or a long lease. */
  record Acquire(int producer, int resource, boolean shortLease) implements ProducerAction {
    @Override
    public String toString() {
      return "P" + producer + " acquire R" + resource + lease(shortLease);
    }
  }

  /** The producer renews its newest ownership of the resource, with a short or a long lease. */
  record Extend(int producer, int resource, boolean shortLease) implements ProducerAction {
    @Override
    public String toString() {
      return "P" + producer + " renew R" + resource + lease(shortLease);
    }
  }

  /** The producer delivers to the receiver with its newest ownership, lost or not. */
  record Send(int producer, int resource) implements ProducerAction {
    @Override
    public String toString() {
      return "P" + producer + " send R" + resource;
    }
  }

  /** The producer releases its newest ownership of the resource. */
  record Release(int producer, int resource) implements ProducerAction {
    @Override
    public String toString() {
      return "P" + producer + " release R" + resource;
    }
  }

  private static String lease(boolean shortLease) {
    return shortLease ? " (short lease)" : " (long lease)";
  }
}
