package dev.fencing.spec;

import static dev.fencing.spec.ModelCheck.passes;
import static dev.fencing.spec.ModelCheck.passesWithLiveness;
import static dev.fencing.spec.ModelCheck.violates;
import static dev.fencing.spec.TlcRun.Size.LARGE;
import static dev.fencing.spec.TlcRun.Size.SMALL;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model-checks {@code AppendEngine.tla}, the append-only claim engine of issue 22, with TLC: the
 * engine satisfies every property, and each broken variant is caught with a counterexample that
 * violates the named property. See the spec's section in README.md.
 */
class AppendEngineModelTest {

  private static final String SPEC = "AppendEngine";

  /**
   * Two jobs in batches: takeovers with leftovers, the window, renewals, lost fail replies, and a
   * worker that writes again under a lease whose write was accepted.
   */
  @Test
  void theEngineKeepsOneTokenOneOwnerAndEveryJobInOnePlace() throws Exception {
    passes(SPEC, "AppendEngine.cfg", SMALL);
  }

  /** One job: renewals, releases, delayed retries, every lost reply; every job ends. */
  @Test
  void withRenewalsReleasesAndRetriesEveryJobEnds() throws Exception {
    passesWithLiveness(SPEC, "AppendEngineOneJob.cfg", SMALL);
  }

  /**
   * The first model with two owners, so that another owner takes a claim row over too, and the
   * receiver: only in the long form ({@code -Pfull}, or {@code -Dfencing.test.excludedGroups=}).
   */
  @Test
  @Tag("long")
  void theEngineWithTwoOwners() throws Exception {
    passes(SPEC, "AppendEngineLong.cfg", LARGE);
  }

  @Test
  void withoutTheGivenBackCheckARetriedFailLandsOnTheNextHandout() throws Exception {
    violates(SPEC, "AppendNoGivenBackCheck.cfg", "NoStaleCommitAccepted");
  }

  @Test
  void withoutTheExpiryCheckAZombieCompletesOnAnExpiredClaim() throws Exception {
    violates(SPEC, "AppendNoExpiryCheck.cfg", "NoStaleCommitAccepted");
  }

  @Test
  void withoutTheIncrementOnTakeoverTwoHandoutsShareAToken() throws Exception {
    violates(SPEC, "AppendSameEpochOnTakeover.cfg", "OneTokenOneOwner");
  }

  @Test
  void aTakeoverThatForgetsItsLeftoversLosesAJob() throws Exception {
    violates(SPEC, "AppendLeftoversForgotten.cfg", "NoJobLost");
  }

  @Test
  void aClaimThatRollsTheWindowPastUntakenJobsLosesAJob() throws Exception {
    violates(SPEC, "AppendWindowRollsPast.cfg", "NoJobLost");
  }

  /**
   * The first design explained only a refused complete: a fail retried after its lost reply was
   * refused although it landed. The handout's source (from) lets the engine tell its own fail.
   */
  @Test
  void withoutExplainingARefusedFailItsRetryIsRefusedAlthoughItLanded() throws Exception {
    violates(SPEC, "AppendNoRepeatForFail.cfg", "LandedWriteNotRefused");
  }

  /**
   * The engine before the done check: a job completed in a batch whose claim row stays live (its
   * other job is open) is failed or released under the same lease, and handed out again.
   */
  @Test
  void withoutTheDoneCheckACompletedJobOfAnOpenBatchIsGivenBack() throws Exception {
    violates(SPEC, "AppendNoDoneCheck.cfg", "NoStaleCommitAccepted");
  }

  /**
   * Issue 36's cancel of a fresh, requeued or running job: no write of its lease lands after it, a
   * fenced receiver takes nothing more, and every job still ends.
   */
  @Test
  void aCancelledJobsHolderIsRefusedAndEveryJobEnds() throws Exception {
    passesWithLiveness(SPEC, "AppendCancel.cfg", SMALL);
  }

  /** A job of a batch cancelled while its claim row holds the other: only in the long form. */
  @Test
  @Tag("long")
  void aCancelInsideABatch() throws Exception {
    passes(SPEC, "AppendCancelTwoJobs.cfg", LARGE);
  }

  /** (8) A cancel that leaves the job open under its claim row: the holder's write lands. */
  @Test
  void aCancelThatLeavesTheLeaseValidLetsTheHoldersWriteLand() throws Exception {
    violates(SPEC, "AppendCancelWithoutFence.cfg", "NoWriteAcceptedAfterCancel");
  }

  /**
   * (9) A cancel that writes its fencing_cancel row for a completed job too: the retry of the
   * complete that landed before it, after a lost reply, is refused as cancelled.
   */
  @Test
  void aCancelOfACompletedJobThatWritesItsRowRefusesTheCommitsRetry() throws Exception {
    violates(SPEC, "AppendCancelEndedJob.cfg", "LandedWriteNotRefused");
  }

  /**
   * (10) A refusal that looks for a repeat before it asks fencing_cancel: the retry of a fail whose
   * requeue row was claimed before the cancel is reported a repeat after the cancel.
   */
  @Test
  void aRefusalThatLooksForARepeatBeforeTheCancelAnswersARetryOtherwise() throws Exception {
    violates(SPEC, "AppendRepeatBeforeCancel.cfg", "CancelRefusesEveryLease");
  }
}
