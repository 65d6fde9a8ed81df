----------------------------- MODULE AppendEngine -----------------------------
(***************************************************************************)
(* The append-only claim engine of fencing-postgres (issue 22): jobs are  *)
(* written once; a claim call appends one claim row that holds the lease  *)
(* of a batch of jobs, and one handout row per job it hands out, each     *)
(* with the job's next epoch; a commit appends a done row, a fail or a    *)
(* release a requeue row; a claim takes fresh jobs from the window, due   *)
(* requeue rows and the open jobs of claim rows whose lease ran out (a    *)
(* takeover).  Every transaction is one atomic step.                       *)
(*                                                                         *)
(* A job's token is the epoch of its newest handout: 1 for the first,     *)
(* the last + 1 for every later one.  A lease (job, owner, epoch) is      *)
(* current iff its handout's claim row has that owner, is live and not    *)
(* expired, has not given the job back (given_back), and the job has no   *)
(* done row: the check of AppendWrites.ownedQuery.                         *)
(*                                                                         *)
(* Cancel (issue 36): the admin fail of a fresh, requeued or running job  *)
(* (AppendChanges) with its fencing_cancel row; with MaxCancels = 0 the   *)
(* configurations before keep their states.                               *)
(*                                                                         *)
(* Variant removes one guard, as Fencing.tla's variants do: each must     *)
(* break a property.  Generation and failover are in Fencing.tla; they    *)
(* are not modelled here.  See README.md beside this file.                *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Workers,      \* owner names; the same name may claim again (and take over its own claim)
    Jobs,         \* job ids, each enqueued once
    Batch,        \* n of claim(worker, n)
    MaxAttempts,  \* max_attempts of every job
    LeaseLen,     \* lease length of a claim row, in ticks of the database clock
    MaxRenewals,  \* renewals of one claim row at most (bounds the model)
    MaxReleases,  \* releases of one job at most (a release does not count an attempt)
    MaxDelay,     \* a fail's retry delay is 0..MaxDelay ticks
    LostReplies,  \* the writes whose reply may be lost (then the worker sends them again)
    Receiver,     \* whether leases deliver to the receiver before they complete
    Again,        \* the writes a worker may send once more under a lease whose write was accepted
    MaxCancels,   \* cancels at most (issue 36); 0: no cancel
    Variant       \* "Correct" or the name of one broken variant

Variants == {"Correct",
             "NoGivenBackCheck",      \* (1) a commit does not look at the row's given_back
             "NoExpiryCheck",         \* (2) a commit does not ask for an unexpired lease
             "SameEpochOnTakeover",   \* (3) a takeover hands out the job's last epoch again
             "LeftoversForgotten",    \* (4) a takeover drops the open jobs beyond the batch
             "WindowRollsPast",       \* (5) a claim moves the window by every item it took
             "NoRepeatForFail",       \* (6) a refused fail or release is never a repeat
             "NoDoneCheck",           \* (7) a write does not ask for no done row
             "CancelWithoutFence",    \* (8) a cancel records the job, leaves its lease valid
             "CancelEndedJob",        \* (9) a cancel of a completed job writes its row too
             "RepeatBeforeCancel"}    \* (10) a refusal looks for a repeat before the cancel

\* Handouts of one job at most: one per attempt, and one more per release.
MaxHandouts == MaxAttempts + MaxReleases
Epochs      == 0..MaxHandouts
\* A cancel's fence: the epoch the job's next handout would take.
FenceEpochs == 0..(MaxHandouts + 1)
ClaimIds    == 1..(Cardinality(Jobs) * MaxHandouts)

ASSUME /\ Variant \in Variants
       /\ Batch \in Nat \ {0}
       /\ MaxAttempts \in Nat \ {0}
       /\ LeaseLen \in Nat \ {0}
       /\ MaxRenewals \in Nat
       /\ MaxReleases \in Nat
       /\ MaxDelay \in Nat
       /\ LostReplies \subseteq {"complete", "fail", "release"}
       /\ Receiver \in BOOLEAN
       /\ Again \subseteq {"complete", "fail", "release", "renew"}
       /\ MaxCancels \in Nat

VARIABLES
    enqueued,  \* the jobs whose enqueue committed (rows of job)
    window,    \* the fresh jobs not yet handed out, oldest first
    claims,    \* claims[c]: claim row c (a claim call that handed something out)
    handouts,  \* the handout rows: (job, epoch) -> claim, attempt
    done,      \* the done rows
    requeue,   \* the requeue rows
    leases,    \* the leases workers hold: one per handout, with ghost fields
    recv,      \* recv[j]: the receiver's newest epoch for key j
    released,  \* released[j]: releases of j so far (bounds the model)
    flags,     \* ghost: what went wrong so far (empty while every property holds)
    cancels    \* the fencing_cancel rows: job, fence epoch, the job's last epoch (and a ghost)

vars == <<enqueued, window, claims, handouts, done, requeue, leases, recv, released, flags,
          cancels>>

(***************************************************************************)
(* Time: the database clock is the only clock.  A claim row keeps         *)
(* left = expires_at - now() in whole ticks (0: expired), a requeue row   *)
(* wait = ready - now() (0: due), so the clock never needs a bound.  A    *)
(* claim row that is no longer live keeps left = 0.  A handout's result   *)
(* (ghost) is its claim id: the handler run under each claim computes its *)
(* own result.                                                             *)
(***************************************************************************)
ClaimItem == [job : Jobs, epoch : Epochs]
\* givenBack: the column given_back, the jobs of the row that a fail (with attempts left) or a
\* release gave back, added by the write that counted them off
ClaimRow  == [owner : Workers, left : 0..LeaseLen, items : SUBSET ClaimItem,
              open : 0..Batch, live : BOOLEAN, renewals : 0..MaxRenewals,
              givenBack : SUBSET Jobs]
\* from: where the handout came from: the window (fresh), a fail, a release, or a lease that
\* ran out (a takeover, or a requeue row of reason expired: one source to the code)
Sources   == {"fresh", "fail", "release", "expired"}
Handout   == [job : Jobs, epoch : Epochs, claim : ClaimIds, attempt : 0..(MaxAttempts + 1),
              from : Sources]
DoneRow   == [job : Jobs, epoch : Epochs, outcome : {"completed", "failed"},
              result : 0..Cardinality(ClaimIds)]
Requeue   == [job : Jobs, wait : 0..MaxDelay, epoch : Epochs, attempts : 0..MaxAttempts,
              reason : {"fail", "release", "expired"}]

(***************************************************************************)
(* A lease as the worker holds it (job, owner, epoch), its attempt, and   *)
(* ghost fields: claim (the claim row that handed it out), phase          *)
(* (working -> delivered; unknown = its write's reply was lost and it     *)
(* sends the write again; settled = its write was accepted and the worker *)
(* may send one more write of Again under it, which the engine must       *)
(* refuse), op (that write), landed (fresh: the write changed the tables  *)
(* while the lease was current; stale: while it was not).  A lease the    *)
(* worker is done with is dropped; what went wrong is kept in flags,      *)
(* which keeps the model small:                                            *)
(*   staleWrite:    a write (renewals too) landed while its lease was not *)
(*                  current                                                *)
(*   staleAccepted: a worker was told accepted (or a repeat) for a write  *)
(*                  that landed stale, or that is not its own             *)
(*   landedRefused: a write that landed was reported refused              *)
(*   lateWrite:     a write (renewals too) of a lease of a cancelled job  *)
(*                  landed after the cancel                               *)
(*   answeredAfterCancel: a write of a lease below a cancel's fence was   *)
(*                  told accepted or a repeat after the cancel            *)
(***************************************************************************)
LeaseRec == [job : Jobs, owner : Workers, epoch : Epochs, claim : ClaimIds,
             attempt : 1..(MaxAttempts + 1),
             phase : {"working", "delivered", "unknown", "settled"},
             op : {"none", "complete", "fail", "release"},
             landed : {"no", "fresh", "stale"}]

Flags == {"staleWrite", "staleAccepted", "landedRefused", "lateWrite", "answeredAfterCancel"}

\* landed (ghost): the epochs of the job's leases whose write had landed when the cancel came
CancelRow == [job : Jobs, fence : FenceEpochs, epoch : Epochs, landed : SUBSET Epochs]

TypeOK == /\ enqueued \subseteq Jobs
          /\ window \in Seq(Jobs)
          /\ claims \in Seq(ClaimRow)
          /\ handouts \subseteq Handout
          /\ done \subseteq DoneRow
          /\ requeue \subseteq Requeue
          /\ leases \subseteq LeaseRec
          /\ recv \in [Jobs -> FenceEpochs]
          /\ released \in [Jobs -> 0..MaxReleases]
          /\ flags \subseteq Flags
          /\ cancels \subseteq CancelRow

Init == /\ enqueued = {}
        /\ window = <<>>
        /\ claims = <<>>
        /\ handouts = {}
        /\ done = {}
        /\ requeue = {}
        /\ leases = {}
        /\ recv = [j \in Jobs |-> 0]
        /\ released = [j \in Jobs |-> 0]
        /\ flags = {}
        /\ cancels = {}

Min(a, b) == IF a <= b THEN a ELSE b

HasDone(j)    == \E d \in done : d.job = j
HasRequeue(j) == \E q \in requeue : q.job = j
NewerHandout(j, e) == \E h \in handouts : h.job = j /\ h.epoch > e

\* The open jobs of claim row c: those of its list with no done row, no requeue row and no
\* newer handout (the jobs a takeover finds, AppendClaims.expired).
OpenJobs(c) == {it.job : it \in {it \in claims[c].items : /\ ~HasDone(it.job)
                                                        /\ ~HasRequeue(it.job)
                                                        /\ ~NewerHandout(it.job, it.epoch)}}

(***************************************************************************)
(* The check every write of a lease goes through, as the SQL has it       *)
(* (AppendWrites.ownedQuery, and fencing_append_complete): a handout      *)
(* (job, epoch) whose claim row has the lease's owner, is live and        *)
(* unexpired, and has not given the job back (given_back); and the job    *)
(* has no done row.  The commits (complete, fail, release) of variants    *)
(* (1) and (2) lack one part, every write of variant (7) the last.        *)
(*                                                                         *)
(* given_back stands for what the model checked before it had the column: *)
(* no newer handout and no requeue row of the job.  For a job of a live   *)
(* claim row the two agree (GivenBackAgrees): the job gets a requeue row  *)
(* or a newer handout only from a write of its lease that gives it back   *)
(* (a fail with attempts left or a release: the requeue row, and the job  *)
(* in given_back, in one transaction; the claim that takes the requeue    *)
(* row hands it out at epoch + 1), or from a takeover, which ends the row *)
(* first; and a job given back keeps its requeue row until a claim takes  *)
(* it, and has a newer handout from then on.                              *)
(*                                                                         *)
(* The done check is not implied by the rest: a complete (or a fail with  *)
(* no attempt left) settles its job without giving it back, and the row   *)
(* stays live while other jobs of its batch are open.  Without the check  *)
(* (7), a fail, release or renewal under that lease passes.  A complete   *)
(* or a last fail would not land even then: done has one row per job (ON  *)
(* CONFLICT DO NOTHING), and such a write is explained (NoDoneRow).        *)
(***************************************************************************)
Matches(l, h, expiry, back) == /\ h.job = l.job /\ h.epoch = l.epoch
                               /\ claims[h.claim].owner = l.owner
                               /\ claims[h.claim].live
                               /\ (claims[h.claim].left > 0 \/ ~expiry)
                               /\ (l.job \notin claims[h.claim].givenBack \/ ~back)

Check(l, expiry, back, isDone) == /\ \E h \in handouts : Matches(l, h, expiry, back)
                                  /\ ~(isDone /\ HasDone(l.job))

Current(l) == Check(l, TRUE, TRUE, TRUE)

CommitCheck(l) == Check(l, Variant # "NoExpiryCheck", Variant # "NoGivenBackCheck",
                        Variant # "NoDoneCheck")

RenewCheck(l) == Check(l, TRUE, TRUE, Variant # "NoDoneCheck")

\* The claim row the SQL's check found for l (the one its write updates).
ClaimFound(l, expiry, back) == (CHOOSE h \in handouts : Matches(l, h, expiry, back)).claim

\* A complete, or a fail with no attempt left, inserts a done row: where the job has one
\* already, it inserts nothing and its write is explained (the primary key of done).
InsertsDone(l, op) == op = "complete" \/ (op = "fail" /\ l.attempt >= MaxAttempts)
NoDoneRow(l, op) == ~(InsertsDone(l, op) /\ HasDone(l.job))

\* A fail with attempts left, or a release, gives the job back: a requeue row. requeue has one
\* row per job too, without ON CONFLICT: a second row fails the transaction (unique_violation,
\* not retried), which then changes nothing, the same as a write not sent. The engine never
\* tries (a write that passes the check has no requeue row: GivenBackAgrees); variant (1) does.
GivesBack(l, op) == op = "release" \/ (op = "fail" /\ l.attempt < MaxAttempts)

\* Ghost truth: l's own claim row is live and unexpired, l's handout is the job's newest and
\* the only one with its epoch, the job has no done and no requeue row.
IsCurrent(l) == /\ claims[l.claim].live
                /\ claims[l.claim].left > 0
                /\ \A h \in handouts : h.job = l.job /\ h.epoch >= l.epoch => h.claim = l.claim
                /\ ~HasDone(l.job)
                /\ ~HasRequeue(l.job)

\* A claim row that ends (live = false) keeps nothing that matters any more: left, renewals
\* and given_back go to 0 and {} (the code keeps given_back, which no check reads once the row
\* is not live), so that TLC sees one state where the database has one.
Ended(r) == [r EXCEPT !.live = FALSE, !.open = 0, !.left = 0, !.renewals = 0, !.givenBack = {}]

\* A write settles job j of claim row c: open - 1, j into given_back if the write gives it back
\* (AppendWrites.countOffQuery); the row ends at 0.
Settle(c, j, back) ==
    [claims EXCEPT ![c] = IF @.open > 1
                          THEN [@ EXCEPT !.open = @ - 1,
                                         !.givenBack = IF back THEN @ \cup {j} ELSE @]
                          ELSE Ended(@)]

Replace(l, l2) == leases' = (leases \ {l}) \cup {l2}

\* The worker is done with the lease: it drops it.
Drop(l) == leases' = leases \ {l}

----------------------------------------------------------------------------
(***************************************************************************)
(* Actions                                                                 *)
(***************************************************************************)

\* The jobs in the order they are enqueued: any one order (job ids are interchangeable).
EnqueueOrder == CHOOSE s \in [1..Cardinality(Jobs) -> Jobs] :
                    \A a, b \in DOMAIN s : a # b => s[a] # s[b]

\* The next enqueue commits: the job row, and the job at the end of the window. A claim sees
\* the job only from then on.
Enqueue == /\ Cardinality(enqueued) < Cardinality(Jobs)
           /\ LET j == EnqueueOrder[Cardinality(enqueued) + 1] IN
              /\ enqueued' = enqueued \cup {j}
              /\ window' = Append(window, j)
           /\ UNCHANGED <<claims, handouts, done, requeue, leases, recv, released, flags,
                          cancels>>

\* now() moves on by one tick: every live claim row comes closer to expiry, every waiting
\* requeue row closer to being due.
Tick == /\ \/ \E c \in 1..Len(claims) : claims[c].live /\ claims[c].left > 0
           \/ \E q \in requeue : q.wait > 0
        /\ claims' = [c \in 1..Len(claims) |->
                        IF claims[c].live /\ claims[c].left > 0
                        THEN [claims[c] EXCEPT !.left = @ - 1] ELSE claims[c]]
        /\ requeue' = {[q EXCEPT !.wait = IF @ > 0 THEN @ - 1 ELSE 0] : q \in requeue}
        /\ UNCHANGED <<enqueued, window, handouts, done, leases, recv, released, flags,
                       cancels>>

(***************************************************************************)
(* Claim(w, n): one transaction.  It takes the k = min(n, ready) oldest   *)
(* ready items from three sources: a prefix of the window (fresh: epoch   *)
(* 1, attempt 1), due requeue rows (epoch = the row's last epoch + 1,     *)
(* attempt = its attempts used + 1; the rows are deleted) and the open    *)
(* jobs of live claim rows whose lease ran out (a takeover: epoch = the   *)
(* handout's + 1, attempt = its attempt + 1).  Every claim row one of     *)
(* whose jobs it takes is taken over whole: live = false, open = 0; its   *)
(* open jobs whose attempt already equals max_attempts are not handed out *)
(* but get a done row, failed; its other open jobs that do not fit in the *)
(* batch go to requeue (ready = the old expiry, so due; reason expired;   *)
(* attempts = their attempt).  Every item taken gets a handout in one new *)
(* claim row owned by w with a fresh lease.                               *)
(*                                                                         *)
(* The model does not order items by age: a claim takes any k of them    *)
(* (the fresh ones a prefix of the window), which covers every order of   *)
(* readiness.  It may also take over expired rows none of whose jobs it   *)
(* hands out (their jobs fail or go to requeue), and a call that finds    *)
(* only spent jobs fails them and writes no claim row.                    *)
(***************************************************************************)
\* The expired live claim rows, and their open handouts.
Expired == {c \in 1..Len(claims) : claims[c].live /\ claims[c].left = 0}
StaleHandouts(expired) == {h \in handouts : h.claim \in expired /\ h.job \in OpenJobs(h.claim)}

\* expired, due and stale are computed once per state (ClaimOne), not once per (w, n).
Claim(w, n, expired, due, stale) ==
    LET spentAll  == {h \in stale : h.attempt >= MaxAttempts}
        k         == Min(n, Len(window) + Cardinality(due) + Cardinality(stale \ spentAll))
        id        == Len(claims) + 1
    IN
    \E f \in 0..Min(k, Len(window)), R \in SUBSET due, taken \in SUBSET (stale \ spentAll),
      X \in SUBSET expired :
      LET T        == {h.claim : h \in taken} \cup X
          open     == {h \in stale : h.claim \in T}
          spent    == open \cap spentAll
          leftover == (open \ spent) \ taken
          fresh    == {window[i] : i \in 1..f}
          epochOf(h) == IF Variant = "SameEpochOnTakeover" THEN h.epoch ELSE h.epoch + 1
          new == {[job |-> j, epoch |-> 1, claim |-> id, attempt |-> 1, from |-> "fresh"] :
                    j \in fresh}
                 \cup {[job |-> q.job, epoch |-> q.epoch + 1, claim |-> id,
                        attempt |-> q.attempts + 1, from |-> q.reason] : q \in R}
                 \cup {[job |-> h.job, epoch |-> epochOf(h), claim |-> id,
                        attempt |-> h.attempt + 1, from |-> "expired"] : h \in taken}
          ended == [c \in 1..Len(claims) |-> IF c \in T THEN Ended(claims[c]) ELSE claims[c]]
          \* variant (5): the window moves on by every item taken, fresh or not
          rolled == IF Variant = "WindowRollsPast" THEN Min(k, Len(window)) ELSE f
      IN
      /\ f + Cardinality(R) + Cardinality(taken) = k
      /\ k >= 1 \/ spent # {}
      /\ window' = SubSeq(window, rolled + 1, Len(window))
      /\ claims' = IF k = 0 THEN ended
                   ELSE Append(ended, [owner |-> w, left |-> LeaseLen,
                                       items |-> {[job |-> h.job, epoch |-> h.epoch] :
                                                    h \in new},
                                       open |-> k, live |-> TRUE, renewals |-> 0,
                                       givenBack |-> {}])
      /\ handouts' = handouts \cup new
      /\ done' = done \cup {[job |-> h.job, epoch |-> h.epoch, outcome |-> "failed",
                             result |-> 0] : h \in spent}
      /\ requeue' = (requeue \ R) \cup
                    (IF Variant = "LeftoversForgotten" THEN {}
                     ELSE {[job |-> h.job, wait |-> 0, epoch |-> h.epoch,
                            attempts |-> h.attempt, reason |-> "expired"] : h \in leftover})
      /\ leases' = leases \cup
                   {[job |-> h.job, owner |-> w, epoch |-> h.epoch, claim |-> id,
                     attempt |-> h.attempt, phase |-> "working", op |-> "none",
                     landed |-> "no"] : h \in new}
      /\ UNCHANGED <<enqueued, recv, released, flags, cancels>>

\* A worker writes once more under a lease whose write was accepted (a caller that completes
\* a job and then releases, fails or renews it): the engine must refuse it (NoStaleCommitAccepted).
\* Its reply is never lost; the worker drops the lease after it.
Late(l, op) == l.phase = "settled" /\ op \in Again

\* Ghost: a write of a lease of job j landed; after j's cancel it is late.
Cancelled(j) == \E x \in cancels : x.job = j
LateFlag(j) == IF Cancelled(j) THEN {"lateWrite"} ELSE {}

\* Renew: if the lease passes the check, its claim row's lease is extended (every job of the
\* row). A refused renewal ends the lease's work (the runtime cancels the handler).
Renew(l) ==
    /\ l.phase \in {"working", "delivered"} \/ Late(l, "renew")
    /\ claims[l.claim].renewals < MaxRenewals
    /\ IF RenewCheck(l)
       THEN LET c == ClaimFound(l, TRUE, TRUE) IN
            /\ claims' = [claims EXCEPT ![c].left = LeaseLen, ![c].renewals = @ + 1]
            /\ IF l.phase = "settled" THEN Drop(l) ELSE UNCHANGED leases
            /\ flags' = flags \cup (IF IsCurrent(l) THEN {} ELSE {"staleWrite"})
                              \cup LateFlag(l.job)
       ELSE /\ Drop(l)
            /\ UNCHANGED <<claims, flags>>
    /\ UNCHANGED <<enqueued, window, handouts, done, requeue, recv, released, cancels>>

\* The receiver keeps the newest epoch per key and accepts a delivery whose epoch is >= it.
\* A refused delivery ends the lease's work: it never commits.
Deliver(l) ==
    /\ l.phase = "working"
    /\ IF l.epoch >= recv[l.job]
       THEN /\ recv' = [recv EXCEPT ![l.job] = l.epoch]
            /\ Replace(l, [l EXCEPT !.phase = "delivered"])
       ELSE /\ Drop(l)
            /\ UNCHANGED recv
    /\ UNCHANGED <<enqueued, window, claims, handouts, done, requeue, released, flags, cancels>>

(***************************************************************************)
(* The writes of a lease: complete, fail and release.  Each is one        *)
(* transaction that passes the check or changes nothing; the row lock on  *)
(* the claim row orders it against a takeover of that row.  If it lands, *)
(* its reply may be lost (if the write is in LostReplies): the worker     *)
(* then sends the same write once more (a retry's own reply is not lost   *)
(* again).                                                                 *)
(*   complete: a done row (completed, the lease's epoch and result).      *)
(*   fail:     a requeue row (attempts = the lease's attempt, reason fail,*)
(*             ready after a delay) while attempts remain, else a done    *)
(*             row (failed).  The handler failed before delivering.       *)
(*   release:  a requeue row (attempts = attempt - 1: a release does not  *)
(*             count an attempt; reason release; ready now).              *)
(* Each settles one job of the claim row it found: open - 1; a fail with  *)
(* attempts left and a release give it back (given_back).                  *)
(***************************************************************************)
Apply(l, op) ==
    LET c == ClaimFound(l, Variant # "NoExpiryCheck", Variant # "NoGivenBackCheck") IN
    /\ claims' = Settle(c, l.job, GivesBack(l, op))
    /\ CASE op = "complete" ->
              /\ done' = done \cup {[job |-> l.job, epoch |-> l.epoch, outcome |-> "completed",
                                     result |-> l.claim]}
              /\ UNCHANGED <<requeue, released>>
         [] op = "fail" /\ l.attempt < MaxAttempts ->
              /\ \E d \in 0..MaxDelay :
                   requeue' = requeue \cup {[job |-> l.job, wait |-> d, epoch |-> l.epoch,
                                             attempts |-> l.attempt, reason |-> "fail"]}
              /\ UNCHANGED <<done, released>>
         [] op = "fail" ->
              /\ done' = done \cup {[job |-> l.job, epoch |-> l.epoch, outcome |-> "failed",
                                     result |-> l.claim]}
              /\ UNCHANGED <<requeue, released>>
         [] op = "release" ->
              /\ requeue' = requeue \cup {[job |-> l.job, wait |-> 0, epoch |-> l.epoch,
                                           attempts |-> l.attempt - 1, reason |-> "release"]}
              /\ released' = [released EXCEPT ![l.job] = Min(@ + 1, MaxReleases)]
              /\ UNCHANGED done

(***************************************************************************)
(* A write the check refused is explained: it is a repeat (accepted) if   *)
(* the tables hold this very write of this lease (its epoch, and its      *)
(* owner through the handout's claim row):                                 *)
(*   complete: the done row, completed, with the lease's epoch and result; *)
(*   fail:     a done row, failed, with its epoch and result (no attempt   *)
(*             left), or a requeue row with its epoch and reason fail;     *)
(*   release:  a requeue row with its epoch and reason release;            *)
(*   fail or release, once that requeue row was claimed: the next handout *)
(*             (epoch + 1) came from a requeue row of that reason.         *)
(* The last needs the handout to keep where it came from (from).  Variant  *)
(* (6) explains only complete, as the first design of the engine did.     *)
(* Before all that (AppendRefusals.explain), a cancel row refuses every    *)
(* lease of its job below its fence as Cancelled, the retry of a fail or   *)
(* release that landed before the cancel included: once the cancel        *)
(* deleted its requeue row nothing tells that write, and the answer is the *)
(* same on every backend.  Variant (10) looks for the repeat first.        *)
(***************************************************************************)
OwnWrite(l, op) ==
    CASE op = "complete" ->
           \E d \in done : /\ d.job = l.job /\ d.epoch = l.epoch
                          /\ d.outcome = "completed" /\ d.result = l.claim
      [] Variant = "NoRepeatForFail" -> FALSE
      [] OTHER ->
           \/ op = "fail" /\ \E d \in done : /\ d.job = l.job /\ d.epoch = l.epoch
                                           /\ d.outcome = "failed" /\ d.result = l.claim
           \/ \E q \in requeue : q.job = l.job /\ q.epoch = l.epoch /\ q.reason = op
           \/ \E h \in handouts : h.job = l.job /\ h.epoch = l.epoch + 1 /\ h.from = op

\* A cancel of l's job fenced l: its epoch is below the cancel's fence.
CancelFences(l) == \E x \in cancels : x.job = l.job /\ x.fence > l.epoch

\* Ghost: l's write landed before its job's cancel.
LandedBeforeCancel(l) == \E x \in cancels : x.job = l.job /\ l.epoch \in x.landed

\* A landed write of l may be refused Cancelled: a fail or release that landed before the cancel.
CancelExcuses(l, op) == op \in {"fail", "release"} /\ LandedBeforeCancel(l)

Explain(l, op) ==
    LET repeat == /\ OwnWrite(l, op)
                  /\ \E h \in handouts : /\ h.job = l.job /\ h.epoch = l.epoch
                                        /\ claims[h.claim].owner = l.owner
    IN CASE CancelFences(l) /\ Variant # "RepeatBeforeCancel" -> "cancelled"
         [] repeat                                             -> "repeat"
         [] CancelFences(l)                                    -> "cancelled"
         [] OTHER                                              -> "refused"

\* A write that lands and is acknowledged leaves the lease settled if the worker may write
\* again under it (Again), else dropped. A lease told refused, cancelled or repeat is dropped:
\* what went wrong is in flags. landed and op of a settled lease are its accepted write's: a
\* late write of another op that is refused is no landed write refused, and one told repeat is
\* told so for a write it never made. Cancelled is no landed write refused only for a fail or
\* release that landed before the cancel (a complete that landed: the job was never cancelled).
Write(l, op, first) ==
    /\ ~(CommitCheck(l) /\ NoDoneRow(l, op) /\ GivesBack(l, op) /\ HasRequeue(l.job))
    /\ IF CommitCheck(l) /\ NoDoneRow(l, op)
       THEN LET landed == IF l.landed = "stale" \/ ~IsCurrent(l) THEN "stale" ELSE "fresh" IN
            /\ Apply(l, op)
            /\ \E ack \in BOOLEAN :
                 /\ ack \/ (first /\ op \in LostReplies)
                 /\ IF ack
                    THEN IF Again = {} \/ l.phase \in {"unknown", "settled"} THEN Drop(l)
                         ELSE Replace(l, [l EXCEPT !.op = op, !.landed = landed,
                                                   !.phase = "settled"])
                    ELSE Replace(l, [l EXCEPT !.op = op, !.landed = landed, !.phase = "unknown"])
                 /\ flags' = flags \cup (IF landed = "stale" THEN {"staleWrite"} ELSE {})
                                   \cup (IF landed = "stale" /\ ack THEN {"staleAccepted"} ELSE {})
                                   \cup LateFlag(l.job)
                                   \cup (IF ack /\ CancelFences(l) THEN {"answeredAfterCancel"}
                                                                   ELSE {})
       ELSE LET told == Explain(l, op) IN
            /\ Drop(l)
            /\ flags' = flags \cup (IF told = "repeat" /\ (l.landed # "fresh" \/ op # l.op)
                                    THEN {"staleAccepted"} ELSE {})
                              \cup (IF /\ l.landed # "no" /\ op = l.op
                                       /\ \/ told = "refused"
                                          \/ told = "cancelled" /\ ~CancelExcuses(l, op)
                                    THEN {"landedRefused"} ELSE {})
                              \cup (IF told = "repeat" /\ CancelFences(l)
                                    THEN {"answeredAfterCancel"} ELSE {})
            /\ UNCHANGED <<done, requeue, claims, released>>
    /\ UNCHANGED <<enqueued, window, handouts, recv, cancels>>

\* Without the receiver (Receiver = FALSE: a smaller model) a lease completes straight away.
\* A late write's reply is never lost (first = FALSE).
Complete(l) == /\ l.phase = (IF Receiver THEN "delivered" ELSE "working") \/ Late(l, "complete")
               /\ Write(l, "complete", l.phase # "settled")
Fail(l)     == /\ l.phase = "working" \/ Late(l, "fail")
               /\ Write(l, "fail", l.phase # "settled")
Release(l)  == /\ (l.phase = "working" /\ released[l.job] < MaxReleases) \/ Late(l, "release")
               /\ Write(l, "release", l.phase # "settled")
Retry(l)    == l.phase = "unknown" /\ Write(l, l.op, FALSE)

(***************************************************************************)
(* Cancel (issue 36), AppendChanges' admin fail in one transaction with   *)
(* the fencing_cancel row (fence = the job's last epoch + 1): a running   *)
(* job (open in a live claim row, its lease expired or not) gets a done   *)
(* row, failed, and is counted off its claim row into given_back; a       *)
(* requeued one loses its requeue row and gets a done row; a fresh one    *)
(* gets a done row and leaves the window (the operated row makes the      *)
(* window skip it).  A job with a done row is left as it is              *)
(* (AlreadyEnded): nothing is written.  The cancel row refuses every      *)
(* lease of the job below its fence (Explain).  CancelWithoutFence writes *)
(* the cancel row only; CancelEndedJob writes it for a completed job too  *)
(* (and nothing else).                                                    *)
(***************************************************************************)
Cancel(j) ==
    LET hs     == {h \in handouts : h.job = j}
        last   == IF hs = {} THEN 0
                  ELSE (CHOOSE h \in hs : \A g \in hs : g.epoch <= h.epoch).epoch
        held   == {c \in 1..Len(claims) : claims[c].live /\ j \in OpenJobs(c)}
        queued == {q \in requeue : q.job = j}
        landed == {l.epoch : l \in {l \in leases : l.job = j /\ l.landed # "no"}}
    IN
    /\ Cardinality(cancels) < MaxCancels
    /\ j \in enqueued /\ ~Cancelled(j)
    /\ ~HasDone(j)
       \/ (Variant = "CancelEndedJob" /\ \E d \in done : d.job = j /\ d.outcome = "completed")
    /\ cancels' = cancels \cup {[job |-> j, fence |-> last + 1, epoch |-> last, landed |-> landed]}
    /\ IF Variant = "CancelWithoutFence" \/ HasDone(j)
       THEN UNCHANGED <<window, claims, done, requeue>>
       ELSE /\ done' = done \cup {[job |-> j, epoch |-> last, outcome |-> "failed",
                                   result |-> 0]}
            /\ claims' = IF held = {} THEN claims ELSE Settle(CHOOSE c \in held : TRUE, j, TRUE)
            /\ requeue' = requeue \ queued
            /\ window' = SelectSeq(window, LAMBDA x : x # j)
    /\ UNCHANGED <<enqueued, handouts, leases, recv, released, flags>>

\* FencedReceiver.fence: the key's epoch raised to the cancel's fence, without a payload.
FenceReceiver(j) ==
    /\ \E x \in cancels : x.job = j /\ x.fence > recv[j] /\ recv' = [recv EXCEPT ![j] = x.fence]
    /\ UNCHANGED <<enqueued, window, claims, handouts, done, requeue, leases, released, flags,
                   cancels>>

\* One operator per kind of step, so that TLC names the step in a counterexample.
CancelOne   == \E j \in Jobs : Cancel(j)
FenceOne    == \E j \in Jobs : FenceReceiver(j)
ClaimOne    == LET expired == Expired
                   due     == {q \in requeue : q.wait = 0}
                   stale   == StaleHandouts(expired)
               IN \E w \in Workers, n \in 1..Batch : Claim(w, n, expired, due, stale)
RenewOne    == \E l \in leases : Renew(l)
DeliverOne  == Receiver /\ \E l \in leases : Deliver(l)
CompleteOne == \E l \in leases : Complete(l)
RetryOne    == \E l \in leases : Retry(l)
FailOne     == \E l \in leases : Fail(l)
ReleaseOne  == \E l \in leases : Release(l)

Next == \/ Enqueue
        \/ Tick
        \/ ClaimOne
        \/ RenewOne
        \/ DeliverOne
        \/ CompleteOne
        \/ RetryOne
        \/ FailOne
        \/ ReleaseOne
        \/ CancelOne
        \/ FenceOne

\* Fairness only for enqueues, the clock and claims: no worker is obliged to do anything.
Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(Enqueue)
        /\ WF_vars(Tick)
        /\ WF_vars(ClaimOne)

----------------------------------------------------------------------------
(***************************************************************************)
(* Properties                                                              *)
(***************************************************************************)

\* No two handouts of one job share an epoch, and at most one lease of a job passes the
\* check at any time.
OneTokenOneOwner ==
    /\ \A g, h \in handouts : g.job = h.job /\ g.epoch = h.epoch => g = h
    /\ LET current == {l \in leases : Current(l)} IN
       \A l, m \in current : l.job = m.job => l = m

\* Issue 36: no write of a lease of a cancelled job lands after the cancel.
NoWriteAcceptedAfterCancel == "lateWrite" \notin flags

\* Issue 36, the answer as every backend gives it: after a cancel, no write of a lease of the job
\* below the fence is told accepted or a repeat: each is refused Cancelled, the retry of a fail
\* or release that landed before the cancel included.
CancelRefusesEveryLease == "answeredAfterCancel" \notin flags

\* Once the fence reached the receiver, it takes nothing more for the key.
ReceiverRefusesCancelled ==
    [][\A x \in cancels : recv[x.job] >= x.fence => recv'[x.job] = recv[x.job]]_vars

\* Every new handout of a job takes a larger epoch than every earlier handout of it.
EpochsOnlyGoUp ==
    [][\A h \in handouts' \ handouts :
         \A g \in handouts : g.job = h.job => g.epoch < h.epoch]_vars

\* A job has at most one done row, and a done row is never changed or removed.
DoneOnce == \A d, e \in done : d.job = e.job => d = e
DoneIsFinal == [][done \subseteq done']_vars

\* A completed job's done epoch is the epoch of the lease that completed it, which was current
\* at that step.
CompletedByCurrentLease ==
    [][\A d \in done' \ done :
         d.outcome = "completed" =>
             \E l \in leases : /\ l.job = d.job /\ l.epoch = d.epoch /\ l.claim = d.result
                               /\ IsCurrent(l)]_vars

\* No write of a lease (complete, fail, release, its retry, a renewal, or a write sent again
\* after one was accepted) lands unless the lease is current.
NoStaleCommitAccepted == "staleWrite" \notin flags

\* A worker told accepted (or accepted as a repeat) wrote itself while it was current.
NoStaleAcceptReported == "staleAccepted" \notin flags

\* A write (complete, fail, release) that landed is never reported refused: its retry after a
\* lost reply is accepted as a repeat, also after the job was handed out again, as long as the
\* job was not cancelled since. A fail or release that landed leaves the job requeued, so a cancel
\* may end it afterwards; the retry after the cancel is then refused Cancelled
\* (CancelRefusesEveryLease), the only refusal such a write may get. A complete that landed is
\* never refused, Cancelled included: the cancel finds the job done and writes nothing.
LandedWriteNotRefused == "landedRefused" \notin flags

\* Every enqueued job is in exactly one place: fresh in the window, in requeue, open in a live
\* claim row (expired or not), or done; a job not enqueued is in none.
Places(j, open) == Cardinality({i \in 1..Len(window) : window[i] = j})
                   + Cardinality({q \in requeue : q.job = j})
                   + Cardinality({c \in 1..Len(claims) : claims[c].live /\ j \in open[c]})
                   + Cardinality({d \in done : d.job = j})
NoJobLost == LET open == [c \in 1..Len(claims) |-> IF claims[c].live THEN OpenJobs(c) ELSE {}]
             IN \A j \in Jobs : Places(j, open) = IF j \in enqueued THEN 1 ELSE 0

\* A live claim row's open counts its open jobs.
OpenCounted == \A c \in 1..Len(claims) : claims[c].live => claims[c].open = Cardinality(OpenJobs(c))

\* A live claim row has given a job of its list back iff the job has a requeue row or a newer
\* handout: the check of given_back is the check for those the model made before it had the
\* column (see the check above).
GivenBackAgrees ==
    \A c \in 1..Len(claims) :
        claims[c].live =>
            \A it \in claims[c].items :
                (it.job \in claims[c].givenBack)
                    <=> \/ HasRequeue(it.job) \/ NewerHandout(it.job, it.epoch)
                        \* a cancel of the running job gives it back too; a cancel of a
                        \* job this row gave back deletes its requeue row
                        \/ \E x \in cancels : x.job = it.job /\ x.epoch = it.epoch

\* Attempts never exceed max_attempts; a requeue row always has one left.
AttemptsBounded == /\ \A h \in handouts : h.attempt <= MaxAttempts
                   /\ \A q \in requeue : q.attempts < MaxAttempts

\* The receiver never accepts an epoch below its newest: its newest never goes down.
ReceiverEpochNeverDecreases == [][\A j \in Jobs : recv'[j] >= recv[j]]_vars

\* Owner names are interchangeable: a safety-only configuration may declare SYMMETRY
\* WorkerSymmetry (not with liveness, where TLC's symmetry reduction is unsound).
WorkerSymmetry == Permutations(Workers)

\* Every job ends with a done row (completed, or failed once its attempts are used up).
EveryJobEnds == \A j \in Jobs : <>HasDone(j)

=============================================================================
