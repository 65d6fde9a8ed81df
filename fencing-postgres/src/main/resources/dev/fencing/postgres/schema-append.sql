-- The tables of the append-only engine (PostgresFencing.Builder.engine(Engine.APPEND_ONLY); docs/ENGINE.md).
-- Installed with schema.sql, by the same installer, into the same schema: a job is inserted once and never
-- updated; what happens to it afterwards is appended (a hand-out per claim, one row when it is done), and
-- one row per claimed batch carries the lease. Every statement is idempotent and takes no ACCESS EXCLUSIVE
-- lock on an existing table.

-- Jobs, written once by their enqueue.
CREATE TABLE IF NOT EXISTS fencing_append_job (
    id               bigserial     NOT NULL,
    queue            varchar(63)   NOT NULL,
    -- the enqueueing transaction (pg_current_xact_id(), 64 bits, never wraps around): claims take fresh
    -- jobs in (xid, id) order, those whose transaction committed between two snapshots of the window
    xid              bigint        NOT NULL,
    payload          jsonb         NOT NULL,
    max_attempts     integer       NOT NULL,
    created_at       timestamptz   NOT NULL DEFAULT now(),
    -- the producer's name for the job, unique per queue (null: none), and the keyed enqueue call that
    -- wrote the row, so that a retried call after a lost acknowledgement reports the jobs it wrote
    idempotency_key  varchar(200),
    enqueue_token    uuid,
    CONSTRAINT fencing_append_job_pk PRIMARY KEY (id)
);

-- One job per key and queue.
CREATE UNIQUE INDEX IF NOT EXISTS fencing_append_job_key_uq ON fencing_append_job (queue, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- The window's scan: a queue's jobs by enqueueing transaction.
CREATE INDEX IF NOT EXISTS fencing_append_job_window_ix ON fencing_append_job (queue, xid, id);

-- Which fresh jobs a queue hands out next, one row per queue (PgQ's design): the jobs whose transaction is
-- visible in snapshot hi and not in snapshot lo, in (xid, id) order after (after_xid, after_id). When a
-- claim has taken all of them, the next window is lo := hi, hi := the current snapshot. A job whose
-- transaction was still open when hi was taken is in a later window: none is skipped.
CREATE TABLE IF NOT EXISTS fencing_append_window (
    queue            varchar(63)   NOT NULL,
    -- pg_snapshot values, as text
    lo               varchar(100000) NOT NULL,
    hi               varchar(100000) NOT NULL,
    after_xid        bigint        NOT NULL,
    after_id         bigint        NOT NULL,
    CONSTRAINT fencing_append_window_pk PRIMARY KEY (queue)
);

-- One row per claim call: the lease of every job it handed out. A renewal extends the row; a commit, fail
-- or release counts its job off (open); a claim that finds the lease run out takes the row over (live =
-- false) and hands its open jobs out again under new epochs.
CREATE TABLE IF NOT EXISTS fencing_append_claim (
    id               bigserial     NOT NULL,
    queue            varchar(63)   NOT NULL,
    owner            varchar(200)  NOT NULL,
    -- judged on the database clock only
    lease_expires_at timestamptz   NOT NULL,
    -- the jobs handed out, and each one's epoch
    job_ids          bigint[]      NOT NULL,
    epochs           bigint[]      NOT NULL,
    -- how many of them are not settled yet (committed, failed or given back)
    open             integer       NOT NULL,
    -- the jobs given back from it (released, or failed with attempts left): a later write under
    -- their leases is refused without looking further than this row
    given_back       bigint[]      NOT NULL DEFAULT '{}',
    -- false once every job is settled or the row was taken over
    live             boolean       NOT NULL DEFAULT true,
    -- the claim call, so that a retried claim finds what its first try took
    claim_token      uuid          NOT NULL,
    claimed_at       timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT fencing_append_claim_pk PRIMARY KEY (id)
);

-- Live claims by lease expiry: what a claim takes over once the lease ran out.
CREATE INDEX IF NOT EXISTS fencing_append_claim_live_ix ON fencing_append_claim (queue, lease_expires_at) WHERE live;
CREATE INDEX IF NOT EXISTS fencing_append_claim_token_ix ON fencing_append_claim (claim_token);
-- Claim rows no longer live, by claim time: what retention removes once older than the jobs it keeps.
CREATE INDEX IF NOT EXISTS fencing_append_claim_ended_ix ON fencing_append_claim (claimed_at) WHERE NOT live;

-- Every hand-out of a job: the epoch it got (the job's token: 1, then one more at every hand-out) and the
-- claim row that holds its lease. Appended by claims, never updated.
CREATE TABLE IF NOT EXISTS fencing_append_handout (
    job_id           bigint        NOT NULL,
    epoch            bigint        NOT NULL,
    claim_id         bigint        NOT NULL,
    -- attempts counted with this one (a release gives its attempt back)
    attempt          integer       NOT NULL,
    -- how the job got here: fresh | fail | release | expired | requeued (by an operator)
    came_from        varchar(16)   NOT NULL,
    -- the error of the failed attempt before it, if any
    last_error       varchar(4000),
    CONSTRAINT fencing_append_handout_pk PRIMARY KEY (job_id, epoch)
);

-- Finished jobs, one row each, inserted by the commit (or the final failure) that ended the job.
CREATE TABLE IF NOT EXISTS fencing_append_done (
    job_id           bigint        NOT NULL,
    queue            varchar(63)   NOT NULL,
    -- the epoch of the lease that ended it
    epoch            bigint        NOT NULL,
    -- completed | failed
    status           varchar(16)   NOT NULL,
    owner            varchar(200),
    attempts         integer       NOT NULL,
    result           jsonb,
    last_error       varchar(4000),
    finished_at      timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT fencing_append_done_pk PRIMARY KEY (job_id),
    CONSTRAINT fencing_append_done_status_ck CHECK (status IN ('completed', 'failed'))
);

-- Finished jobs by finish time, for retention (PostgresFencing.maintenance()).
CREATE INDEX IF NOT EXISTS fencing_append_done_finished_ix ON fencing_append_done (finished_at);

-- Failed jobs per queue, for its depth.
CREATE INDEX IF NOT EXISTS fencing_append_done_failed_ix ON fencing_append_done (queue) WHERE status = 'failed';

-- Jobs to hand out again: given back, failed with attempts left, or left over from a taken-over claim.
-- Deleted by the claim that takes it.
CREATE TABLE IF NOT EXISTS fencing_append_requeue (
    job_id           bigint        NOT NULL,
    queue            varchar(63)   NOT NULL,
    ready_at         timestamptz   NOT NULL,
    -- the last hand-out: its epoch and owner
    epoch            bigint        NOT NULL,
    owner            varchar(200)  NOT NULL,
    -- attempts used so far
    attempts         integer       NOT NULL,
    -- fail | release | expired | requeued (by an operator, PostgresFencing.admin())
    reason           varchar(16)   NOT NULL,
    last_error       varchar(4000),
    CONSTRAINT fencing_append_requeue_pk PRIMARY KEY (job_id)
);

CREATE INDEX IF NOT EXISTS fencing_append_requeue_ready_ix ON fencing_append_requeue (queue, ready_at, job_id);

-- What an operator last did to a job (PostgresFencing.admin()): failed it, or requeued it after it failed,
-- and at which epoch. One row per job, replaced by the next change. The window skips a fresh job that has
-- one: an operator failed it before any claim took it (and if it was requeued since, its requeue row hands
-- it out). Written by the admin only, never on the hot path; a claim's only cost is one probe of this
-- nearly empty table per fresh job.
CREATE TABLE IF NOT EXISTS fencing_append_operated (
    job_id           bigint        NOT NULL,
    -- admin_failed | requeued
    event            varchar(16)   NOT NULL,
    epoch            bigint        NOT NULL,
    at               timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT fencing_append_operated_pk PRIMARY KEY (job_id),
    CONSTRAINT fencing_append_operated_event_ck CHECK (event IN ('admin_failed', 'requeued'))
);

-- Storage settings for the two tables whose indexes every claim scans from their oldest entry
-- (fencing_append_claim_live_ix for leases run out, fencing_append_requeue_ready_ix for jobs due): a
-- claim row that ended, or a requeue row a claim took, leaves a dead entry there that every claim steps
-- over until a VACUUM removes it (measured without VACUUM: 722 index buffers a claim after a million
-- single-job claims). Autovacuum by a fixed count of dead versions (10,000), not by 20 % of a table that
-- may hold days of claim rows, keeps that to a few pages; docs/ENGINE.md, "What it costs, measured".
-- Changing them takes a SHARE UPDATE EXCLUSIVE lock: it waits for a running VACUUM, never for claims.
-- [jooq ignore start]
ALTER TABLE fencing_append_claim SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
ALTER TABLE fencing_append_requeue SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
-- [jooq ignore stop]
