------------------------------- MODULE Fencing -------------------------------
(***************************************************************************)
(* The fencing protocol of fencing-postgres, as the code implements it:   *)
(* a job row claimed with a lease judged on the database clock, an epoch  *)
(* (fencing token) bumped by every claim, heartbeats and commits that are *)
(* compare-and-sets on owner and epoch, a receiver that keeps the newest  *)
(* epoch per key, retried commits after a lost acknowledgement, the       *)
(* batched commit (completeAll) and attempts that run out; and the        *)
(* failover of a replicated database, which may lose a suffix of commits, *)
(* with the generation (the timeline less one) ahead of every epoch's     *)
(* counter (docs/HA.md).                                                  *)
(*                                                                         *)
(* Issue 36: cancel (the job ends failed, its lease ended, the receiver  *)
(* may be fenced at the next epoch) and a running limit (claims count     *)
(* valid leases under the limit's lock; renewals of limited jobs take the *)
(* lock too).  With MaxCancels = 0 and Limit = 0 their variables stay at  *)
(* their initial values: the configurations before keep their states.    *)
(*                                                                         *)
(* Variant removes one guard of the protocol, like the broken backends of *)
(* fencing-demo's BrokenVariants: each of them must break a property.     *)
(*                                                                         *)
(* See README.md beside this file for how each action maps to the code.   *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Workers,      \* owner names; the same name may claim a job again
    Jobs,         \* job ids
    NoOwner,      \* the owner column of a job never claimed
    MaxAttempts,  \* max_attempts of every job
    LeaseLen,     \* lease length, in ticks of the database clock
    MaxRenewals,  \* heartbeats one lease sends at most (bounds the model)
    MaxFailovers, \* promotions of the standby at most; 0: one server, no replication modelled
    MaxCancels,   \* cancels at most (issue 36); 0: no cancel
    Limit,        \* the queue's running limit (max_running, issue 36); 0: no limit
    GroupLimit,   \* the running limit of the jobs' group (all jobs are of one group); 0: none
    Variant       \* "Correct" or the name of one broken variant

Variants == {"Correct", "NoCompareAndSet", "NoReceiverEpochCheck",
             "NoIncrementOnClaim", "NoEpochInCompareAndSet", "NoSettledEpochs",
             "NoGeneration", "CancelWithoutFence", "CancelEndedJob",
             "SettledBeforeCancel", "LimitRenewWithoutLock", "LimitNoCount",
             "GroupCountsLeases"}

\* Claims of one job at most: MaxAttempts per generation, since a failover may set attempts back.
MaxClaims == MaxAttempts * (MaxFailovers + 1)

\* The epoch of generation g, counter c, is g * GenerationUnit + c: generation << 32 | counter in
\* the code, in decimal here (TLC's integers have 32 bits), so a trace reads 101 as generation 1,
\* counter 1. The counter never reaches the unit in the model (see the ASSUME).
GenerationUnit == 100

ASSUME /\ Variant \in Variants
       /\ NoOwner \notin Workers
       /\ MaxAttempts \in Nat \ {0}
       /\ LeaseLen \in Nat \ {0}
       /\ MaxRenewals \in Nat
       /\ MaxFailovers \in Nat
       /\ MaxCancels \in Nat
       /\ Limit \in Nat
       /\ GroupLimit \in Nat
       /\ MaxClaims < GenerationUnit

VARIABLES
    job,      \* job[j]: the row of fencing_job on the primary
    leases,   \* the leases workers hold: one record per claim ever granted
    recv,     \* recv[j]: the receiver's newest receipt for key j (in another database)
    replica,  \* replica[j]: the row as the standby has applied it
    gen,      \* the primary's generation (its timeline less one): the failovers so far
    cancelled \* cancelled[j] (ghost): the fence epoch of j's cancel (0: none), whether a write
              \* of a lease of j landed after it (late), and the claims of j whose write had
              \* landed when it came (landed)

vars == <<job, leases, recv, replica, gen, cancelled>>

(***************************************************************************)
(* The row.  Time: the database clock now() is the only clock.  A row     *)
(* keeps left = lease_expires_at - now() in whole ticks (0 when expired   *)
(* or not running), so a tick of now() lowers left of every running job.  *)
(* result and err hold the claim number of the lease that wrote them: a   *)
(* handler run under each claim computes its own result.  Claims are      *)
(* numbered over every claim ever made of the job, lost ones included;    *)
(* the ghost field claim holds the number of the row's newest claim (it   *)
(* equals attempts as long as no failover set the row back).              *)
(***************************************************************************)
Statuses == {"pending", "running", "completed", "failed"}
Events   == {"enqueued", "claimed", "renewed", "completed", "retry", "failed", "cancelled"}
Claims   == 1..MaxClaims
Epochs   == 0..(MaxFailovers * GenerationUnit + MaxClaims)
\* A cancel's fence is the epoch the job's next claim would take: one above every epoch.
FenceEpochs == 0..(MaxFailovers * GenerationUnit + MaxClaims + 1)

Row == [status : Statuses, owner : Workers \cup {NoOwner}, epoch : Epochs,
        attempts : 0..MaxAttempts, expiries : 0..MaxClaims, left : 0..LeaseLen,
        result : 0..MaxClaims, err : 0..MaxClaims, lastEvent : Events,
        settled : SUBSET Epochs, claim : 0..MaxClaims]

(***************************************************************************)
(* A lease as the worker holds it (job, owner, epoch), with the claim     *)
(* number that identifies it in the model, and ghost fields that record   *)
(* what happened to its writes:                                            *)
(*   phase:  working -> delivered -> done; unknown = its write's          *)
(*           acknowledgement was lost and it must retry                   *)
(*   op:     the write it sent (complete or fail)                         *)
(*   landed: no | fresh (its write changed the row while it was the       *)
(*           current, unexpired claim) | stale (while it was not) | lost  *)
(*           (it landed fresh, and a failover lost it)                    *)
(*   told:   what the queue reported for its write: accepted, a repeat,   *)
(*           refused, or cancelled (the refusal FencedOutcome.Cancelled)  *)
(*   renew:  a heartbeat of a job under a limit in flight (two steps):    *)
(*           none | locked (it holds the limit's lock FOR SHARE) | live,  *)
(*           dead (LimitRenewWithoutLock: its transaction started, and    *)
(*           lease_expires_at > now() held, or not, at that start)        *)
(***************************************************************************)
LeaseRec == [job : Jobs, owner : Workers, epoch : Epochs, claim : Claims,
             renewals : 0..MaxRenewals, renew : {"none", "locked", "live", "dead"},
             phase : {"working", "delivered", "unknown", "done"},
             op : {"none", "complete", "fail"},
             landed : {"no", "fresh", "stale", "lost"},
             told : {"none", "accepted", "repeat", "refused", "cancelled"}]

\* A receipt's claim is the claim that delivered it; a fence's is the claim that would take its epoch.
Receipt == [epoch : FenceEpochs, claim : 0..(MaxClaims + 1)]

CancelRec == [fence : FenceEpochs, late : BOOLEAN, landed : SUBSET Claims]

TypeOK == /\ job \in [Jobs -> Row]
          /\ leases \subseteq LeaseRec
          /\ recv \in [Jobs -> Receipt]
          /\ replica \in [Jobs -> Row]
          /\ gen \in 0..MaxFailovers
          /\ cancelled \in [Jobs -> CancelRec]

Enqueued == [j \in Jobs |-> [status |-> "pending", owner |-> NoOwner, epoch |-> 0,
                             attempts |-> 0, expiries |-> 0, left |-> 0,
                             result |-> 0, err |-> 0, lastEvent |-> "enqueued",
                             settled |-> {}, claim |-> 0]]

Init == /\ job = Enqueued
        /\ leases = {}
        /\ recv = [j \in Jobs |-> [epoch |-> 0, claim |-> 0]]
        /\ replica = Enqueued
        /\ gen = 0
        /\ cancelled = [j \in Jobs |-> [fence |-> 0, late |-> FALSE, landed |-> {}]]

Max(a, b) == IF a >= b THEN a ELSE b

(***************************************************************************)
(* The compare-and-set every write of a lease goes through               *)
(* (Commits.owns): id, owner and epoch equal the lease's, the job is      *)
(* running and lease_expires_at > now().                                   *)
(***************************************************************************)
Owns(l) == LET r == job[l.job] IN
           /\ r.status = "running"
           /\ r.owner = l.owner
           /\ r.epoch = l.epoch
           /\ r.left > 0

OwnsNoEpoch(l) == LET r == job[l.job] IN
                  /\ r.status = "running"
                  /\ r.owner = l.owner
                  /\ r.left > 0

\* The guard of complete, as each variant has it.
CasComplete(l) == CASE Variant = "NoCompareAndSet"        -> TRUE
                    [] Variant = "NoEpochInCompareAndSet" -> OwnsNoEpoch(l)
                    [] OTHER                              -> Owns(l)

\* The guard of renew (the variant without the epoch replaces renew too).
CasRenew(l) == IF Variant = "NoEpochInCompareAndSet" THEN OwnsNoEpoch(l) ELSE Owns(l)

\* Ghost truth, not visible to the code: l is the claim the job is running under now, unexpired.
IsCurrent(l) == LET r == job[l.job] IN
                /\ r.status = "running"
                /\ r.claim = l.claim
                /\ r.left > 0

\* What a write of l records about itself when it lands.
Landed(l) == IF l.landed = "stale" \/ ~IsCurrent(l) THEN "stale" ELSE "fresh"

\* The row after l's complete lands (the broken one sets status and result only).
Completed(r, l) ==
    IF Variant = "NoCompareAndSet"
    THEN [r EXCEPT !.status = "completed", !.result = l.claim]
    ELSE [r EXCEPT !.status = "completed", !.result = l.claim, !.left = 0,
                   !.lastEvent = "completed"]

\* The row after l's fail lands: back to pending, or failed when attempts are used up.
Failed(r, l) ==
    IF r.attempts >= MaxAttempts
    THEN [r EXCEPT !.status = "failed", !.left = 0, !.err = l.claim, !.lastEvent = "failed",
                   !.settled = @ \cup {l.epoch}]
    ELSE [r EXCEPT !.status = "pending", !.left = 0, !.err = l.claim, !.lastEvent = "retry",
                   !.settled = @ \cup {l.epoch}]

(***************************************************************************)
(* A compare-and-set that matched no row is explained from a fresh read   *)
(* of the row r (Refusals.classify): AlreadyFinished is the only refusal  *)
(* with the lease's own epoch and owner on a job no longer running; then  *)
(* Refusals.isRepeat asks whether the row holds this very write, and if   *)
(* so the write is reported accepted as a repeat.  Before all that, a     *)
(* cancelled job's fencing_cancel row refuses every lease below its fence *)
(* as Cancelled (InPlaceRefusals.refusal, Cancels.Mark.refusal): a fail   *)
(* that landed before the cancel included, whose retry is then no repeat. *)
(***************************************************************************)
AlreadyFinished(l, r) == r.epoch = l.epoch /\ r.owner = l.owner /\ r.status # "running"

SameWriteAgain(l, r) ==
    IF l.op = "complete"
    THEN r.lastEvent = "completed" /\ r.result = l.claim
    ELSE r.lastEvent \in {"failed", "retry"} /\ r.err = l.claim

\* A fail whose job was claimed again since (Superseded) is found in settled_epochs
\* (Refusals.wasSettled): the lease's own fail landed before the reclaim.
\* NoSettledEpochs is the code before that check: such a retry was refused.
\* SettledBeforeCancel asks settled_epochs before the cancel (the order this model demanded
\* before the code's choice): a fail that landed before the cancel (the job pending again, then
\* cancelled, or claimed again and then cancelled) is found there, as the cancel keeps
\* settled_epochs, and its retry after the cancel is reported a repeat.
SettledBefore(l, r) ==
    /\ Variant # "NoSettledEpochs"
    /\ l.op = "fail" /\ l.epoch \in r.settled
    /\ r.epoch > l.epoch \/ r.lastEvent = "cancelled"

\* The job's cancel fenced this lease: its epoch is below the fence (0 if never cancelled).
CancelFences(l) == cancelled[l.job].fence > l.epoch

Explain(l, r) ==
    CASE CancelFences(l) /\ Variant # "SettledBeforeCancel"                     -> "cancelled"
      [] (AlreadyFinished(l, r) /\ SameWriteAgain(l, r)) \/ SettledBefore(l, r) -> "repeat"
      [] CancelFences(l)                                                        -> "cancelled"
      [] OTHER                                                                  -> "refused"

Replace(l, l2) == leases' = (leases \ {l}) \cup {l2}

\* Writes of leases of the jobs S landed (ghost): if a job of S was cancelled, the write is late.
Wrote(S) == cancelled' = [j \in Jobs |-> IF j \in S /\ cancelled[j].fence > 0
                                        THEN [cancelled[j] EXCEPT !.late = TRUE]
                                        ELSE cancelled[j]]

(***************************************************************************)
(* The running limit (issue 36): every job is under the queue's limit.    *)
(* A slot is valid iff its lease is: the row is running at the slot's     *)
(* epoch and lease_expires_at > now().  A claim holds the limit's lock    *)
(* (fencing_limit_state FOR NO KEY UPDATE) while it counts the valid      *)
(* slots and claims; a renewal of a job under the limit holds it FOR      *)
(* SHARE, so no claim runs while a renewal holds it.                      *)
(***************************************************************************)
ValidSlots == {j \in Jobs : job[j].status = "running" /\ job[j].left > 0}

LimitLockFree == \A l \in leases : l.renew # "locked"

\* Whether the limit lets a claim of j go on: the lock is free, and the claim hands nothing out
\* (a spent job only ends failed) or finds room. LimitNoCount takes the lock and counts nothing.
\* (IF, not a disjunction: TLC would generate a claim once per true disjunct.)
LimitAllows(j) ==
    IF Limit = 0 THEN TRUE
    ELSE /\ LimitLockFree
         /\ IF Variant = "LimitNoCount" THEN TRUE
            ELSE Cardinality(ValidSlots) < Limit
                 \/ (job[j].status = "running" /\ job[j].attempts >= MaxAttempts)

\* Issue 36's group limit (GroupLimits; every job of the model is of one group): a job of the
\* group counts from its claim until it ends or is given back (its row is running, whatever its
\* lease), so an expired job keeps its place: its takeover is allowed, a pending job starts only
\* while fewer jobs run. GroupCountsLeases counts valid leases instead, as the queue's limit does.
UnderWay == {j \in Jobs : job[j].status = "running"}

GroupAllows(j) ==
    IF GroupLimit = 0 \/ job[j].status = "running" THEN TRUE
    ELSE IF Variant = "GroupCountsLeases" THEN Cardinality(ValidSlots) < GroupLimit
    ELSE Cardinality(UnderWay) < GroupLimit

----------------------------------------------------------------------------
(***************************************************************************)
(* Actions                                                                 *)
(***************************************************************************)

\* now() moves on by one tick: every running lease comes one tick closer to expiry, on the
\* primary and in the standby's copy alike (lease_expires_at is a time on the one clock).
Ticked(rows) == [j \in Jobs |-> IF rows[j].status = "running" /\ rows[j].left > 0
                               THEN [rows[j] EXCEPT !.left = @ - 1]
                               ELSE rows[j]]

Tick == /\ \E j \in Jobs : job[j].status = "running" /\ job[j].left > 0
        /\ job' = Ticked(job)
        /\ replica' = Ticked(replica)
        /\ UNCHANGED <<leases, recv, gen, cancelled>>

\* Generation.next: the first epoch of the primary's generation if the row's epoch is from an
\* older one, else epoch + 1. NoGeneration is the code before the generation: epoch + 1.
NextEpoch(e) == CASE Variant = "NoIncrementOnClaim" -> Max(e, 1)
                  [] Variant = "NoGeneration"       -> e + 1
                  [] e \div GenerationUnit < gen    -> gen * GenerationUnit + 1
                  [] OTHER                          -> e + 1

\* Claims.claimBatch: a pending job, or a running one whose lease ran out, is claimed:
\* owner set, the next epoch, attempts + 1, lease from now(). A lease that ran out on a job whose
\* attempts are used up is not handed out again: the same statement ends the job failed.
Claim(w, j) ==
    LET r == job[j]
        expired == r.status = "running" /\ r.left = 0
        epoch == NextEpoch(r.epoch)
        \* the claim's number (ghost): one more than every claim ever made of the job
        n == Cardinality({l \in leases : l.job = j}) + 1
    IN
    /\ r.status = "pending" \/ expired
    /\ LimitAllows(j)
    /\ GroupAllows(j)
    /\ IF expired /\ r.attempts >= MaxAttempts
       THEN /\ job' = [job EXCEPT ![j] = [r EXCEPT !.status = "failed",
                                                   !.expiries = @ + 1,
                                                   !.lastEvent = "failed"]]
            /\ UNCHANGED leases
       ELSE /\ job' = [job EXCEPT ![j] = [r EXCEPT !.status = "running", !.owner = w,
                                                   !.epoch = epoch, !.attempts = @ + 1,
                                                   !.expiries = IF expired THEN @ + 1 ELSE @,
                                                   !.left = LeaseLen,
                                                   !.lastEvent = "claimed", !.claim = n]]
            /\ leases' = leases \cup
                   {[job |-> j, owner |-> w, epoch |-> epoch, claim |-> n, renewals |-> 0,
                     renew |-> "none", phase |-> "working", op |-> "none", landed |-> "no",
                     told |-> "none"]}
    /\ UNCHANGED <<recv, replica, gen, cancelled>>

\* Renewals.renewAll (one item): a heartbeat; the compare-and-set extends the lease from now().
\* A refused heartbeat stops the lease's work (the runtime cancels the handler).
\* Without a limit: one statement, judged at one instant.
Renew(l) ==
    /\ Limit = 0
    /\ l.phase \in {"working", "delivered"}
    /\ l.renewals < MaxRenewals
    /\ IF CasRenew(l)
       THEN /\ job' = [job EXCEPT ![l.job].left = LeaseLen, ![l.job].lastEvent = "renewed"]
            /\ Replace(l, [l EXCEPT !.renewals = @ + 1])
            /\ Wrote({l.job})
       ELSE /\ Replace(l, [l EXCEPT !.renewals = @ + 1, !.phase = "done"])
            /\ UNCHANGED <<job, cancelled>>
    /\ UNCHANGED <<recv, replica, gen>>

\* Under a limit a heartbeat is a transaction of two steps. RenewLock: it starts and takes the
\* limit's lock FOR SHARE (waiting for a claim that holds it: claims are atomic here); RenewApply
\* then reads clock_timestamp() and runs the compare-and-set against it, the lock still held.
RenewLock(l) ==
    /\ Limit > 0 /\ Variant # "LimitRenewWithoutLock"
    /\ l.phase \in {"working", "delivered"}
    /\ l.renewals < MaxRenewals
    /\ l.renew = "none"
    /\ Replace(l, [l EXCEPT !.renew = "locked"])
    /\ UNCHANGED <<job, recv, replica, gen, cancelled>>

\* LimitRenewWithoutLock, V1's renewal under a limit: no lock, and the compare-and-set tests
\* lease_expires_at > now(), the transaction's start: RenewStart fixes that verdict, and the
\* update lands later (RenewApply) with whatever the clock says then.
RenewStart(l) ==
    /\ Limit > 0 /\ Variant = "LimitRenewWithoutLock"
    /\ l.phase \in {"working", "delivered"}
    /\ l.renewals < MaxRenewals
    /\ l.renew = "none"
    /\ Replace(l, [l EXCEPT !.renew = IF job[l.job].left > 0 THEN "live" ELSE "dead"])
    /\ UNCHANGED <<job, recv, replica, gen, cancelled>>

\* The update of a heartbeat under a limit; its commit releases the lock. The compare-and-set
\* matches id, owner, epoch and running on the row as it is now (the row lock's recheck), and the
\* expiry against the lock holder's clock_timestamp() (now), or the start's now() (without lock).
RenewApply(l) ==
    LET r == job[l.job]
        cas == /\ r.status = "running" /\ r.owner = l.owner /\ r.epoch = l.epoch
               /\ IF l.renew = "locked" THEN r.left > 0 ELSE l.renew = "live"
    IN
    /\ l.renew # "none"
    /\ IF cas
       THEN /\ job' = [job EXCEPT ![l.job].left = LeaseLen, ![l.job].lastEvent = "renewed"]
            /\ Replace(l, [l EXCEPT !.renewals = @ + 1, !.renew = "none"])
            /\ Wrote({l.job})
       ELSE /\ Replace(l, [l EXCEPT !.renewals = @ + 1, !.renew = "none",
                                    !.phase = IF @ \in {"working", "delivered"} THEN "done"
                                                                              ELSE @])
            /\ UNCHANGED <<job, cancelled>>
    /\ UNCHANGED <<recv, replica, gen>>

\* FencedReceiver.deliver before the commit (HandlerLoop.deliver): the receiver keeps the
\* newest epoch per key, accepts the same epoch again, refuses an older one. A refused delivery
\* ends the lease's work: it never commits.
Deliver(l) ==
    LET k == l.job
        accept == Variant = "NoReceiverEpochCheck" \/ l.epoch >= recv[k].epoch
    IN
    /\ l.phase = "working"
    /\ IF accept
       THEN /\ recv' = [recv EXCEPT ![k] = [epoch |-> l.epoch, claim |-> l.claim]]
            /\ Replace(l, [l EXCEPT !.phase = "delivered"])
       ELSE /\ Replace(l, [l EXCEPT !.phase = "done"])
            /\ UNCHANGED recv
    /\ UNCHANGED <<job, replica, gen, cancelled>>

\* Commits.complete: the compare-and-set. If it lands, the reply may be lost (ack = FALSE):
\* the write is in the database, and the worker only knows it must retry.
Complete(l) ==
    /\ l.phase = "delivered"
    /\ IF CasComplete(l)
       THEN /\ job' = [job EXCEPT ![l.job] = Completed(@, l)]
            /\ \E ack \in BOOLEAN :
                 Replace(l, [l EXCEPT !.op = "complete", !.landed = Landed(l),
                                      !.phase = IF ack THEN "done" ELSE "unknown",
                                      !.told = IF ack THEN "accepted" ELSE "none"])
            /\ Wrote({l.job})
       ELSE /\ Replace(l, [l EXCEPT !.op = "complete", !.phase = "done",
                                    !.told = Explain([l EXCEPT !.op = "complete"], job[l.job])])
            /\ UNCHANGED <<job, cancelled>>
    /\ UNCHANGED <<recv, replica, gen>>

\* Commits.fail: the handler failed; the compare-and-set puts the job back to pending
\* (or failed when its attempts are used up). Its reply may be lost too.
Fail(l) ==
    /\ l.phase = "working"
    /\ IF Owns(l)
       THEN /\ job' = [job EXCEPT ![l.job] = Failed(@, l)]
            /\ \E ack \in BOOLEAN :
                 Replace(l, [l EXCEPT !.op = "fail", !.landed = Landed(l),
                                      !.phase = IF ack THEN "done" ELSE "unknown",
                                      !.told = IF ack THEN "accepted" ELSE "none"])
            /\ Wrote({l.job})
       ELSE /\ Replace(l, [l EXCEPT !.op = "fail", !.phase = "done",
                                    !.told = Explain([l EXCEPT !.op = "fail"], job[l.job])])
            /\ UNCHANGED <<job, cancelled>>
    /\ UNCHANGED <<recv, replica, gen>>

\* Jdbc.guarded runs the statement again after the lost reply: the same lease, the same result.
\* If the compare-and-set matches no row, Refusals explains it (and finds the repeat).
\* A retry's own reply is not lost again (bounds the model).
Retry(l) ==
    LET cas == IF l.op = "complete" THEN CasComplete(l) ELSE Owns(l)
        after == IF l.op = "complete" THEN Completed(job[l.job], l) ELSE Failed(job[l.job], l)
    IN
    /\ l.phase = "unknown"
    /\ IF cas
       THEN /\ job' = [job EXCEPT ![l.job] = after]
            \* a write that leaves the row as it was (the same result once more) changes nothing
            /\ Replace(l, [l EXCEPT !.landed = IF after = job[l.job] THEN @ ELSE Landed(l),
                                    !.phase = "done", !.told = "accepted"])
            /\ Wrote({l.job})
       ELSE /\ Replace(l, [l EXCEPT !.phase = "done", !.told = Explain(l, job[l.job])])
            /\ UNCHANGED <<job, cancelled>>
    /\ UNCHANGED <<recv, replica, gen>>

(***************************************************************************)
(* Commits.completeAll: several delivered leases of one worker in one     *)
(* UPDATE ... FROM unnest(...) WITH ORDINALITY.  Every item is judged on  *)
(* its own job, owner and epoch against the rows as the statement found   *)
(* them; a row matched by two items is updated once, by one of them       *)
(* (PostgreSQL picks); RETURNING names the items that landed.  The others *)
(* are explained one by one (Commits.explainMiss).  The reply of the      *)
(* whole statement may be lost; then every item retries on its own.       *)
(* The broken backends that replace complete have no batched statement:   *)
(* their completeAll loops complete, which Complete already covers.       *)
(***************************************************************************)
CompleteAll(w, S) ==
    LET pass == {l \in S : Owns(l)}
    IN
    /\ Variant \notin {"NoCompareAndSet", "NoEpochInCompareAndSet"}
    /\ Cardinality(S) >= 2
    /\ \A l \in S : l.owner = w /\ l.phase = "delivered"
    /\ \E won \in SUBSET pass :
         /\ \A l \in pass : \E m \in won : m.job = l.job
         /\ \A l, m \in won : l.job = m.job => l = m
         /\ LET row == [j \in Jobs |-> IF \E m \in won : m.job = j
                                       THEN Completed(job[j], CHOOSE m \in won : m.job = j)
                                       ELSE job[j]]
                Item(l, ack) ==
                    IF l \in won
                    THEN [l EXCEPT !.op = "complete", !.landed = Landed(l),
                                   !.phase = IF ack THEN "done" ELSE "unknown",
                                   !.told = IF ack THEN "accepted" ELSE "none"]
                    ELSE [l EXCEPT !.op = "complete",
                                   !.phase = IF ack THEN "done" ELSE "unknown",
                                   !.told = IF ack THEN Explain([l EXCEPT !.op = "complete"],
                                                               row[l.job])
                                                   ELSE "none"]
            IN /\ job' = row
               /\ \E ack \in BOOLEAN : leases' = (leases \ S) \cup {Item(l, ack) : l \in S}
               /\ Wrote({m.job : m \in won})
    /\ UNCHANGED <<recv, replica, gen>>

(***************************************************************************)
(* Replication and failover (docs/HA.md).  The standby applies the        *)
(* primary's commits in their order, so its copy of the table is always   *)
(* the primary's table as it was at some earlier moment: Replicate brings *)
(* it up to the present, at any moment, which makes every prefix of the   *)
(* commits reachable.  Failover promotes the standby: the job rows become *)
(* its copy, without the old primary's commits it had not applied (the    *)
(* lost suffix, possibly empty), and the timeline, so the generation,     *)
(* goes up.  Workers and the receiver (another database) keep what they   *)
(* hold: every lease granted before is still held, by a zombie or not.    *)
(* The old primary is gone (Patroni stopped it, or it was rewound into    *)
(* the new standby, which starts from the new primary's rows).  After the *)
(* last failover the model stops tracking a standby.                      *)
(***************************************************************************)
Replicate == /\ gen < MaxFailovers
             /\ replica # job
             /\ replica' = job
             /\ UNCHANGED <<job, leases, recv, gen, cancelled>>

\* Whether l's write is in the rows r: a completed row keeps the result of the claim that
\* completed it; a fail leaves its epoch in settled (epochs identify claims, the property below).
Kept(l, r) == IF l.op = "complete" THEN r.result = l.claim ELSE l.epoch \in r.settled

\* What a lease's write became after a failover that left the rows r (ghost).
AfterFailover(l, r) ==
    IF l.landed = "fresh" /\ ~Kept(l, r[l.job]) THEN [l EXCEPT !.landed = "lost"] ELSE l

Failover == /\ gen < MaxFailovers
            /\ gen' = gen + 1
            /\ job' = replica
            /\ replica' = IF gen + 1 < MaxFailovers THEN replica ELSE Enqueued
            /\ leases' = {AfterFailover(l, replica) : l \in leases}
            /\ UNCHANGED <<recv, cancelled>>

(***************************************************************************)
(* Cancel (issue 36): the admin fail of a pending or running job          *)
(* (InPlaceAdmin's change with last_event = 'cancelled': status failed,   *)
(* lease_expires_at null, owner and epoch kept) and, in the same          *)
(* transaction, the fencing_cancel row with fence_epoch =                  *)
(* Generation.next(epoch): the epoch the next claim would take, above     *)
(* every lease's.  The holder's compare-and-set can no longer match.      *)
(* A job that ended is left as it is (AlreadyEnded): nothing is written.  *)
(* CancelWithoutFence records the cancel and leaves the row as it is: its *)
(* lease stays valid.  CancelEndedJob also records the cancel of a        *)
(* completed job (the fencing_cancel row written before the state is      *)
(* checked, or answered AlreadyEnded and written all the same).           *)
(***************************************************************************)
Cancel(j) ==
    LET r == job[j]
        \* ghost: the claims of j whose write has landed
        wrote == {l.claim : l \in {m \in leases : m.job = j /\ m.landed \in {"fresh", "stale"}}}
    IN
    /\ Cardinality({k \in Jobs : cancelled[k].fence > 0}) < MaxCancels
    /\ cancelled[j].fence = 0
    /\ r.status \in {"pending", "running"}
       \/ (Variant = "CancelEndedJob" /\ r.status = "completed")
    /\ cancelled' = [cancelled EXCEPT ![j].fence = NextEpoch(r.epoch), ![j].landed = wrote]
    /\ IF Variant = "CancelWithoutFence" \/ r.status = "completed"
       THEN UNCHANGED job
       ELSE job' = [job EXCEPT ![j] = [r EXCEPT !.status = "failed", !.left = 0,
                                                !.lastEvent = "cancelled"]]
    /\ UNCHANGED <<leases, recv, replica, gen>>

\* FencedReceiver.fence(key, fence): raises the key's epoch to the cancel's fence without a
\* payload (FencedWorkers.cancel, fencing cancel --receiver). The receipt's ghost claim is the
\* claim that would take the fence's epoch.
FenceReceiver(j) ==
    /\ cancelled[j].fence > recv[j].epoch
    /\ recv' = [recv EXCEPT ![j] = [epoch |-> cancelled[j].fence,
                                    claim |-> Cardinality({l \in leases : l.job = j}) + 1]]
    /\ UNCHANGED <<job, leases, replica, gen, cancelled>>

\* One operator per kind of step, so that TLC names the step in a counterexample.
RenewOne       == \E l \in leases : Renew(l)
RenewLockOne   == \E l \in leases : RenewLock(l)
RenewStartOne  == \E l \in leases : RenewStart(l)
RenewApplyOne  == \E l \in leases : RenewApply(l)
CancelOne      == \E j \in Jobs : Cancel(j)
FenceOne       == \E j \in Jobs : FenceReceiver(j)
DeliverOne     == \E l \in leases : Deliver(l)
CompleteOne    == \E l \in leases : Complete(l)
FailOne        == \E l \in leases : Fail(l)
RetryOne       == \E l \in leases : Retry(l)
CompleteBatch  == \E w \in Workers : \E S \in SUBSET leases : CompleteAll(w, S)

Next == \/ Tick
        \/ \E w \in Workers, j \in Jobs : Claim(w, j)
        \/ RenewOne
        \/ DeliverOne
        \/ CompleteOne
        \/ FailOne
        \/ RetryOne
        \/ CompleteBatch
        \/ Replicate
        \/ Failover
        \/ RenewLockOne
        \/ RenewStartOne
        \/ RenewApplyOne
        \/ CancelOne
        \/ FenceOne

(***************************************************************************)
(* Fairness only for the database clock and for claiming: no worker is    *)
(* ever obliged to do anything (it may stall or die at any point), yet    *)
(* every job must end.                                                     *)
(***************************************************************************)
Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(Tick)
        /\ \A j \in Jobs : WF_vars(\E w \in Workers : Claim(w, j))

----------------------------------------------------------------------------
(***************************************************************************)
(* Properties                                                              *)
(***************************************************************************)

\* No write of a lease lands unless that lease is the job's current, unexpired claim.
NoStaleCommitAccepted == \A l \in leases : l.landed # "stale"

\* A worker told "accepted" (first time or as a repeat) really wrote the row while it held
\* the current claim: never a zombie, never a repeat of somebody else's write. (A failover may
\* lose the write afterwards, "lost": asynchronous replication loses acknowledged commits.)
NoStaleAcceptReported ==
    \A l \in leases : l.told \in {"accepted", "repeat"} => l.landed \in {"fresh", "lost"}

\* A complete that landed (and was not lost in a failover) is never reported refused, Cancelled
\* included: after a lost reply the retry with the same lease and result is accepted (as a
\* repeat). A cancel finds the job completed and writes nothing (AlreadyEnded).
LandedCompleteNotRefused ==
    \A l \in leases : l.op = "complete" /\ l.landed \in {"fresh", "stale"}
                      => l.told \notin {"refused", "cancelled"}

\* The same for fail, as long as the job was not cancelled since the fail landed. Fail puts the
\* job back to pending, so a retry after a lost reply can find it claimed again (Superseded);
\* settled_epochs tells that the fail had landed. Without it (before the fix) TLC found a
\* 5-state counterexample. Issue 36: a fail that landed leaves the job pending, so a cancel may
\* end it afterwards; the retry after the cancel is then refused Cancelled, like every write of
\* the job's leases below the fence (nothing is written: CancelRefusesEveryLease). Cancelled is
\* the only refusal a landed fail may get, and only if it landed before the job's cancel.
LandedFailNotRefused ==
    \A l \in leases : l.op = "fail" /\ l.landed \in {"fresh", "stale"}
                      => /\ l.told # "refused"
                         /\ l.told = "cancelled" => l.claim \in cancelled[l.job].landed

\* A step that promotes the standby: it sets the rows back to the standby's copy.
Promotes == gen' # gen

\* A completed job never changes again: nothing is applied twice over it, and no later
\* commit overwrites its result. (A failover may lose the completion: the job runs again.)
CompletedIsFinal ==
    [][~Promotes => \A j \in Jobs : job[j].status = "completed" => job'[j] = job[j]]_vars

\* Epochs only go up, and every claim takes a larger epoch than every claim before it: on one
\* primary. (A failover sets the row's epoch back to the standby's; see LaterClaimLargerToken.)
EpochsOnlyGoUp ==
    [][~Promotes =>
         \A j \in Jobs : /\ job'[j].epoch >= job[j].epoch
                        /\ job'[j].attempts > job[j].attempts => job'[j].epoch > job[j].epoch]_vars

\* Two claims of one job never hold the same epoch.
EpochIdentifiesClaim ==
    \A l, m \in leases : l.job = m.job /\ l.epoch = m.epoch => l.claim = m.claim

\* One token, one owner (issue 21): the same across failovers. Claims are numbered over every
\* claim ever made of the job, lost ones included, so a claim the new primary makes again over a
\* lost one is another claim: it must not hold the lost claim's token.
OneTokenOneOwner == EpochIdentifiesClaim

\* A later claim of a job holds a larger token than every earlier one, lost ones included: so a
\* receiver that has seen the later owner refuses every earlier one (docs/HA.md).
LaterClaimLargerToken ==
    \A l, m \in leases : l.job = m.job /\ l.claim > m.claim => l.epoch > m.epoch

\* The receiver's newest epoch per key never goes down.
ReceiverEpochNeverDecreases == [][\A j \in Jobs : recv'[j].epoch >= recv[j].epoch]_vars

\* The receiver never takes two claims' deliveries under one token: the same epoch again is
\* the same claim's (a repeat), never another owner's.
ReceiverOneClaimPerToken ==
    [][\A j \in Jobs : recv'[j].epoch = recv[j].epoch => recv'[j].claim = recv[j].claim]_vars

\* The receiver never replaces a newer claim's delivery with an older claim's.
ReceiverNeverTakesOlderClaim == [][\A j \in Jobs : recv'[j].claim >= recv[j].claim]_vars

\* Claims never exceed max_attempts (schema: "never above max_attempts").
AttemptsBounded == \A j \in Jobs : job[j].attempts <= MaxAttempts

\* Issue 36: no write of a lease of a cancelled job lands after the cancel (complete, fail,
\* their retries, a batched complete, a heartbeat): the holder's compare-and-set never matches
\* again. (Release is not modelled.) A fail that landed before the cancel is in the row; its
\* retry after the cancel is refused Cancelled all the same (CancelRefusesEveryLease).
NoWriteAcceptedAfterCancel == \A j \in Jobs : ~cancelled[j].late

\* Issue 36, the answer as every backend gives it: after a cancel, every write of every lease of
\* the job below the fence that is answered is answered Cancelled, never accepted, never a
\* repeat (the retry of a fail that landed before the cancel included: the append-only engine
\* cannot tell it once the cancel replaced its requeue row). A complete that landed before is
\* not concerned: then the job was completed, and the cancel wrote no fence.
CancelRefusesEveryLease ==
    [][\A l \in leases, m \in leases' :
         /\ m.job = l.job /\ m.claim = l.claim /\ m.told # l.told
         /\ CancelFences(l)
         => m.told = "cancelled"]_vars

\* The receiver has been fenced for the cancelled job j: its epoch reached the cancel's fence.
Fenced(j) == cancelled[j].fence > 0 /\ recv[j].epoch >= cancelled[j].fence

\* Once the fence reached the receiver, it accepts no delivery of the key any more: every lease
\* of the job holds an epoch below the fence, and no claim takes the fence's epoch.
ReceiverRefusesCancelled == [][\A j \in Jobs : Fenced(j) => recv'[j] = recv[j]]_vars

\* Issue 36: the leases valid now (the compare-and-set would match them) never exceed the limit.
ValidLeasesWithinLimit == Limit > 0 => Cardinality({l \in leases : Owns(l)}) <= Limit

\* Issue 36: the group's jobs under way, and so its valid leases, never exceed its limit.
GroupWithinLimit == GroupLimit > 0 => Cardinality(UnderWay) <= GroupLimit
ValidLeasesWithinGroupLimit ==
    GroupLimit > 0 => Cardinality({l \in leases : Owns(l)}) <= GroupLimit

\* Every job ends: completed, or failed once its attempts are used up.
EveryJobEnds == \A j \in Jobs : <>(job[j].status \in {"completed", "failed"})

=============================================================================
