package dev.fencing.testkit;

/**
 * One step of a {@link Schedule}: a worker does something, or something happens to it. Workers are
 * numbered from 0; {@code lease} picks one of the leases the worker holds (modulo how many it
 * holds), oldest first.
 */
public sealed interface Step {

  /** The worker this step is about. */
  int worker();

  /** Claims one job, with a short lease (waited out by {@link LeasesRunOut}) or a long one. */
  record Claim(int worker, boolean shortLease) implements Step {
    @Override
    public String toString() {
      return "w" + worker + " claims (" + (shortLease ? "short" : "long") + " lease)";
    }
  }

  /** Extends a held lease by its original length. */
  record Renew(int worker, int lease) implements Step {
    @Override
    public String toString() {
      return "w" + worker + " renews lease #" + lease;
    }
  }

  /** Delivers the job's result to the receiver, with the lease's job id and epoch. */
  record Deliver(int worker, int lease) implements Step {
    @Override
    public String toString() {
      return "w" + worker + " delivers under lease #" + lease;
    }
  }

  /** Commits the job's result (delivering it first if this lease has not delivered yet). */
  record Complete(int worker, int lease) implements Step {
    @Override
    public String toString() {
      return "w" + worker + " completes under lease #" + lease;
    }
  }

  /** Records a failure; the job becomes claimable again at once, until its attempts run out. */
  record Fail(int worker, int lease) implements Step {
    @Override
    public String toString() {
      return "w" + worker + " fails under lease #" + lease;
    }
  }

  /** Freezes the worker's process with {@code SIGSTOP}; its later steps wait until it resumes. */
  record Stall(int worker) implements Step {
    @Override
    public String toString() {
      return "w" + worker + " stalls (SIGSTOP)";
    }
  }

  /** Thaws the worker's process with {@code SIGCONT}; it carries on with what it was told. */
  record Resume(int worker) implements Step {
    @Override
    public String toString() {
      return "w" + worker + " resumes (SIGCONT)";
    }
  }

  /**
   * Time passes: waits until every short lease held so far has run out on the database clock. It is
   * about no worker in particular; {@link #worker()} is 0.
   */
  record LeasesRunOut() implements Step {
    @Override
    public int worker() {
      return 0;
    }

    @Override
    public String toString() {
      return "time passes: every short lease runs out";
    }
  }

  /**
   * Kills the worker's process with {@code SIGKILL}; a fresh process with no leases replaces it.
   */
  record Crash(int worker) implements Step {
    @Override
    public String toString() {
      return "w" + worker + " crashes (SIGKILL)";
    }
  }
}
