-- Queue controls (issue 36): run later, priorities, cancel, limits. An expand step: it only creates
-- tables and indexes that no earlier library reads, so a V1 library keeps running on a V2 schema
-- (compatible_from stays 1; docs/UPGRADING.md). No job table is altered: a job's new attributes live
-- in tables of their own, keyed by the job's id, and a V1 worker never sees a job that needs them
-- (docs/design/ISSUE-36.md, section 2). Every statement is idempotent.

-- A job's options, for its whole life: written by the enqueue of a job with a non-default priority,
-- read again when the job goes back to waiting (a failure's retry, a release) so that it keeps its
-- priority. Deleted with the job by retention.
CREATE TABLE IF NOT EXISTS fencing_job_option (
    job_id           bigint        NOT NULL,
    queue            varchar(63)   NOT NULL,
    priority         smallint      NOT NULL DEFAULT 0,
    -- the limit key (per-group limits); null when none
    grp              varchar(200),
    CONSTRAINT fencing_job_option_pk PRIMARY KEY (job_id),
    CONSTRAINT fencing_job_option_priority_ck CHECK (priority BETWEEN -10 AND 10)
);

-- Jobs waiting to be claimed that rank by priority ("parked"), on both engines: one row per waiting job
-- whose priority is not 0. A V1 worker never claims them (on the in-place engine the job's own row
-- waits at run_at 9999-01-01, on the append-only one behind an operated row), so only a V2 claim hands
-- them out, by priority, then ready time, then id. Deleted by the claim that takes the job.
CREATE TABLE IF NOT EXISTS fencing_parked (
    job_id           bigint        NOT NULL,
    queue            varchar(63)   NOT NULL,
    priority         smallint      NOT NULL,
    ready_at         timestamptz   NOT NULL,
    grp              varchar(200),
    CONSTRAINT fencing_parked_pk PRIMARY KEY (job_id)
);

CREATE INDEX IF NOT EXISTS fencing_parked_order_ix ON fencing_parked (queue, priority DESC, ready_at, job_id);

CREATE INDEX IF NOT EXISTS fencing_parked_group_ix ON fencing_parked (queue, grp, job_id) WHERE grp IS NOT NULL;

-- Cancelled jobs (FencedQueue.cancel): names the refusal every later write of the job's leases gets,
-- and keeps the epoch that fences them all at a receiver. Deleted with the job by retention.
CREATE TABLE IF NOT EXISTS fencing_cancel (
    job_id           bigint        NOT NULL,
    queue            varchar(63)   NOT NULL,
    -- the epoch of the lease the cancel ended, null when the job was pending
    lease_epoch      bigint,
    -- the epoch above every lease the job was handed out under
    fence_epoch      bigint        NOT NULL,
    -- pending | running: what the job was when cancelled
    was              varchar(16)   NOT NULL,
    reason           varchar(4000),
    at               timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT fencing_cancel_pk PRIMARY KEY (job_id)
);

-- A queue's limits, one row per queue, read by every claim of a queue that has one; changed while
-- running (the next claim obeys). Null columns are limits not set.
CREATE TABLE IF NOT EXISTS fencing_queue_limit (
    queue              varchar(63)   NOT NULL,
    max_running        integer,
    rate_starts        integer,
    rate_per_us        bigint,
    rate_burst         integer,
    group_max_running  integer,
    group_rate_starts  integer,
    group_rate_per_us  bigint,
    group_rate_burst   integer,
    fifo_per_group     boolean       NOT NULL DEFAULT false,
    aging_us           bigint,
    revision           bigint        NOT NULL DEFAULT 1,
    updated_at         timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT fencing_queue_limit_pk PRIMARY KEY (queue)
);

-- The lock and token bucket of one limit: grp '' is the queue's own, any other a group's. Its row lock is
-- the limit's mutex: a claim under the limit holds it FOR NO KEY UPDATE while it counts and hands out, a
-- renewal of a job under it FOR SHARE. Created when first needed.
CREATE TABLE IF NOT EXISTS fencing_limit_state (
    queue            varchar(63)   NOT NULL,
    grp              varchar(200)  NOT NULL,
    tokens           double precision,
    refilled_at      timestamptz,
    CONSTRAINT fencing_limit_state_pk PRIMARY KEY (queue, grp)
);

-- One row per hand-out under a limit: which lease of which job holds a slot of it. A slot counts only
-- while its lease is valid (the job still running at that epoch, its lease not run out), so a zombie's
-- slot never counts; the next claim under the limit's lock deletes the slots that no longer count.
CREATE TABLE IF NOT EXISTS fencing_limit_slot (
    queue            varchar(63)   NOT NULL,
    grp              varchar(200)  NOT NULL,
    job_id           bigint        NOT NULL,
    epoch            bigint        NOT NULL,
    CONSTRAINT fencing_limit_slot_pk PRIMARY KEY (queue, grp, job_id)
);

CREATE INDEX IF NOT EXISTS fencing_limit_slot_job_ix ON fencing_limit_slot (job_id);

-- fencing_parked and fencing_limit_slot churn like fencing_append_requeue: autovacuum by a fixed count
-- of dead versions (see V1).
-- [jooq ignore start]
ALTER TABLE fencing_parked SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
ALTER TABLE fencing_limit_slot SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);

-- The V2 claim of fresh jobs only (AppendClaims): the V1 function, fencing_append_claim_fresh, whose
-- body stays as it is, behind one more probe. It answers job id -1, writing nothing, also when a parked
-- job (fencing_parked: a priority) of the queue is due, so that the claim that merges by priority
-- (AppendClaims' transaction) runs instead. The probe is one range scan of fencing_parked_order_ix.
CREATE OR REPLACE FUNCTION fencing_append_claim_fresh_v2(p_queue varchar, p_owner varchar, p_micros bigint, p_n integer, p_token uuid, p_async boolean, p_generation bigint)
RETURNS TABLE (o_job_id bigint, o_epoch bigint, o_payload text, o_lease_micros bigint)
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
SET enable_seqscan = off
AS $fencing$
BEGIN
    -- parked jobs due, or controls on the queue (a limit, a rate, groups' limits, an aging): the full claim
    IF EXISTS (SELECT 1 FROM fencing_parked k WHERE k.queue = p_queue AND k.ready_at <= now())
       OR EXISTS (SELECT 1 FROM fencing_queue_limit l WHERE l.queue = p_queue
                  AND (l.max_running IS NOT NULL OR l.rate_starts IS NOT NULL OR l.group_max_running IS NOT NULL
                       OR l.group_rate_starts IS NOT NULL OR l.fifo_per_group OR l.aging_us IS NOT NULL)) THEN
        RETURN QUERY SELECT -1::bigint, 0::bigint, NULL::text, 0::bigint;
        RETURN;
    END IF;
    RETURN QUERY SELECT f.o_job_id, f.o_epoch, f.o_payload, f.o_lease_micros
        FROM fencing_append_claim_fresh(p_queue, p_owner, p_micros, p_n, p_token, p_async, p_generation) f;
END
$fencing$;

INSERT INTO fencing_schema_version (version, description, compatible_from)
VALUES (2, 'queue controls', 1)
ON CONFLICT (version) DO NOTHING;
-- [jooq ignore stop]
