-- Schema version 1 of fencing: jobs (both storage engines), owned resources, the outbox, receivers'
-- receipts, recurring schedules' marks, and the record of what the schema is (its engine, its versions).
--
-- The migrations of this directory are the single source of the schema: PostgresFencing's installer
-- runs each whole, in one transaction, in version order, after CREATE SCHEMA and SET LOCAL search_path
-- to the schema the user chose; Flyway and Liquibase can run them as they are (README, "Upgrading"); jOOQ
-- classes are generated from them at build time. Every script ends by recording its version in
-- fencing_schema_version, so a schema migrated by any tool says what it holds.
--
-- Version 1 is the schema the builds before versions were recorded installed last (up to commit
-- 10cffd4), plus fencing_schema_version: every statement is idempotent, so it also brings a schema
-- installed by such a build to version 1 without changing what it holds. None takes an ACCESS EXCLUSIVE lock on an existing table, so it
-- never stops running workers. What a later script may and may not change: docs/UPGRADING.md.

CREATE TABLE IF NOT EXISTS fencing_job (
    id               bigserial     NOT NULL,
    queue            varchar(63)   NOT NULL,
    payload          jsonb         NOT NULL,
    -- pending | running | completed | failed
    status           varchar(16)   NOT NULL DEFAULT 'pending',
    -- the worker that holds (or last held) the lease
    owner            varchar(200),
    -- the fencing token: bumped by every claim, never reset, never lowered
    epoch            bigint        NOT NULL DEFAULT 0,
    -- claims so far, one per claim (a reclaim after a lease ran out included); never above max_attempts
    attempts         integer       NOT NULL DEFAULT 0,
    -- how many times a lease on the job ran out (counted when a claim finds it expired)
    expiries         integer       NOT NULL DEFAULT 0,
    max_attempts     integer       NOT NULL DEFAULT 5,
    run_at           timestamptz   NOT NULL DEFAULT now(),
    -- judged on the database clock only
    lease_expires_at timestamptz,
    -- the claimBatch call that took the lease, so that a retried claim finds what its first try took
    claim_token      uuid,
    result           jsonb,
    last_error       varchar(4000),
    -- the last write to the row: enqueued | claimed | renewed | completed | retry | failed | released,
    -- which tells a retried commit (same lease, acknowledgement lost) from a contradicting one
    last_event       varchar(16)   NOT NULL DEFAULT 'enqueued',
    -- the leases whose owners gave the job back: +epoch for a fail, -epoch for a release, of the last
    -- 16 epochs; so a fail or release retried after the job was claimed again knows it had landed
    settled_epochs   bigint[]      NOT NULL DEFAULT '{}',
    created_at       timestamptz   NOT NULL DEFAULT now(),
    updated_at       timestamptz   NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    -- the producer's name for the job, unique per queue (null: none); enqueueing it again finds
    -- this row instead of adding one, for as long as the row exists
    idempotency_key  varchar(200),
    -- the keyed enqueue call that wrote the row, so that a retried call after a lost
    -- acknowledgement reports the jobs its first try wrote as its own
    enqueue_token    uuid,
    -- the owners of the last 16 claims, oldest first: every claim bumps the epoch by exactly 1 and
    -- appends its owner, so the last element held the current epoch and element i (from 1) held epoch
    -- epoch - cardinality(owners) + i
    owners           varchar(200)[] NOT NULL DEFAULT '{}',
    CONSTRAINT fencing_job_pk PRIMARY KEY (id),
    CONSTRAINT fencing_job_status_ck CHECK (status IN ('pending', 'running', 'completed', 'failed')),
    CONSTRAINT fencing_job_epoch_ck CHECK (epoch >= 0),
    CONSTRAINT fencing_job_running_ck CHECK (status <> 'running' OR (owner IS NOT NULL AND lease_expires_at IS NOT NULL AND epoch >= 1))
);

-- One job per key and queue.
CREATE UNIQUE INDEX IF NOT EXISTS fencing_job_key_uq ON fencing_job (queue, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- Claimable rows only: pending jobs by due time, and running jobs by lease expiry.
CREATE INDEX IF NOT EXISTS fencing_job_pending_ix ON fencing_job (queue, run_at, id) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS fencing_job_running_ix ON fencing_job (queue, lease_expires_at) WHERE status = 'running';
-- Failed jobs, so that a queue's depth is counted from three partial indexes and never from the
-- completed rows (no update enters it but the one that fails a job for good).
CREATE INDEX IF NOT EXISTS fencing_job_failed_ix ON fencing_job (queue, finished_at) WHERE status = 'failed';

-- Finished jobs by finish time, so that retention finds the oldest without reading the table
-- (PostgresFencing.maintenance()). Only a commit or a terminal fail enters it, one entry per job.
CREATE INDEX IF NOT EXISTS fencing_job_finished_ix ON fencing_job (finished_at) WHERE status IN ('completed', 'failed');

-- Storage settings for a table where every claim, renewal and commit writes a new row version:
-- * fillfactor 90: pages are filled to 90 % by inserts, so the new version of a job written by a claim,
--   renewal or commit usually fits in the page of the old one (PostgreSQL tries that page first), and
--   page pruning reclaims the old one in place: a busy job does not spread over new pages.
-- * autovacuum by a fixed count of dead versions (10,000), not by a fraction of the table: with the
--   default 20 %, a table holding 5 million finished jobs waits for a million dead versions, and the
--   partial indexes of claimable jobs carry their dead entries, which every claim scans, until then.
-- * analyze after 1,000 changes plus 2 % of the table (default: 50 plus 10 %), so that statistics stay
--   fresh on a large table, where the plans of claims and of key look-ups depend on them.
-- Changing them takes a SHARE UPDATE EXCLUSIVE lock: it waits for a running VACUUM, never for claims.
-- [jooq ignore start]
ALTER TABLE fencing_job SET (fillfactor = 90, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000, autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 1000);
-- [jooq ignore stop]

-- Finished jobs moved out by retention when archiving is chosen (PostgresMaintenance.Builder.archive): the row
-- as it was (to_jsonb, so that later columns need no change here) and its outbox messages. Nothing
-- reads or deletes this table: it is the user's record, to keep, copy elsewhere or drop.
CREATE TABLE IF NOT EXISTS fencing_job_archive (
    id               bigint        NOT NULL,
    queue            varchar(63)   NOT NULL,
    finished_at      timestamptz   NOT NULL,
    archived_at      timestamptz   NOT NULL DEFAULT now(),
    job              jsonb         NOT NULL,
    -- the job's outbox messages (all delivered), oldest first; [] when none
    messages         jsonb         NOT NULL,
    CONSTRAINT fencing_job_archive_pk PRIMARY KEY (id)
);

-- Named resources owned one at a time (PostgresFencing.ownership()): one row per resource, created by its first
-- acquisition and never deleted, so its epoch only grows, across owners, clients and database
-- restarts.
CREATE TABLE IF NOT EXISTS fencing_resource (
    name             varchar(200)  NOT NULL,
    -- the holder, or the last holder once its lease ran out or was released
    owner            varchar(200)  NOT NULL,
    -- the fencing token: 1 at the first acquisition, bumped by every later one, never lowered
    epoch            bigint        NOT NULL,
    -- judged on the database clock only; a release sets it to now()
    lease_expires_at timestamptz   NOT NULL,
    acquired_at      timestamptz   NOT NULL DEFAULT now(),
    -- the acquire call that took the row, so that a retried acquire finds what its first try took
    acquire_token    uuid          NOT NULL,
    CONSTRAINT fencing_resource_pk PRIMARY KEY (name),
    CONSTRAINT fencing_resource_epoch_ck CHECK (epoch >= 1)
);

-- The outbox: messages a commit wrote together with its job's result, in the same transaction as the
-- compare-and-set, so a refused commit wrote none. A job commits once, so (job_id, idx) names a message
-- for good: it is the idempotency key a relay sends. Rows are kept once delivered, with the outcome.
CREATE TABLE IF NOT EXISTS fencing_outbox (
    id               bigserial     NOT NULL,
    job_id           bigint        NOT NULL,
    -- the message's position in its commit's list, from 0
    idx              integer       NOT NULL,
    -- the epoch of the lease whose commit wrote it
    epoch            bigint        NOT NULL,
    destination      varchar(63)   NOT NULL,
    receiver_key     varchar(500)  NOT NULL,
    payload          jsonb         NOT NULL,
    created_at       timestamptz   NOT NULL DEFAULT now(),
    -- set by the relay once the receiver answered: accepted | repeat | superseded | expired |
    -- not_owner | finished | removed, with the epoch that won when superseded
    delivered_at     timestamptz,
    outcome          varchar(16),
    won_epoch        bigint,
    CONSTRAINT fencing_outbox_pk PRIMARY KEY (id),
    CONSTRAINT fencing_outbox_message_uq UNIQUE (job_id, idx),
    CONSTRAINT fencing_outbox_epoch_ck CHECK (epoch >= 1)
);

-- Undelivered messages by destination, oldest first.
CREATE INDEX IF NOT EXISTS fencing_outbox_undelivered_ix ON fencing_outbox (destination, id) WHERE delivered_at IS NULL;

-- Receivers' receipts (PostgresFencing.receiver(name)): the newest accepted epoch and payload per
-- (receiver, key). Rows are never deleted, so a key's epoch only grows.
CREATE TABLE IF NOT EXISTS fencing_receipt (
    receiver         varchar(63)   NOT NULL,
    key              varchar(500)  NOT NULL,
    epoch            bigint        NOT NULL,
    payload          jsonb         NOT NULL,
    accepted_at      timestamptz   NOT NULL DEFAULT now(),
    updated_at       timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT fencing_receipt_pk PRIMARY KEY (receiver, key),
    CONSTRAINT fencing_receipt_epoch_ck CHECK (epoch >= 1)
);

-- Recurring schedules (PostgresFencing.schedules(), used by fencing-schedule): per schedule, the newest
-- revision of its definition and its high-water mark, the latest slot dealt with (enqueued or skipped).
-- A scheduler moves the mark by a compare-and-set from the value it read, in the statement that enqueues
-- the slots' jobs, so a stalled scheduler's late advance changes nothing. Rows are never deleted by the
-- library: the mark only moves forward, whatever retention removes from the job tables.
CREATE TABLE IF NOT EXISTS fencing_schedule (
    name             varchar(100)  NOT NULL,
    -- the user's revision of the definition: the highest stored wins, never lowered
    revision         bigint        NOT NULL,
    -- the definition as the scheduler wrote it (trigger, zone, queue, payload, policy)
    definition       text          NOT NULL,
    -- every slot at or before it has been dealt with; first set to the time of the first registration
    last_slot        timestamptz   NOT NULL,
    -- the advance call that last moved the mark, so that a retried advance after a lost
    -- acknowledgement knows its first try landed
    advance_token    uuid,
    created_at       timestamptz   NOT NULL DEFAULT now(),
    updated_at       timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT fencing_schedule_pk PRIMARY KEY (name),
    CONSTRAINT fencing_schedule_revision_ck CHECK (revision >= 1)
);

-- What the schema is: one row, written at the end of this script when there is none, never changed by
-- the library. engine is how the schema's queues store their jobs (PostgresFencing.Engine, lower case):
-- a handle built with another engine is refused, one built without an engine follows it.
CREATE TABLE IF NOT EXISTS fencing_schema (
    one              boolean       NOT NULL DEFAULT true,
    engine           varchar(32)   NOT NULL,
    installed_at     timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT fencing_schema_pk PRIMARY KEY (one),
    CONSTRAINT fencing_schema_one_ck CHECK (one),
    CONSTRAINT fencing_schema_engine_ck CHECK (engine IN ('update_in_place', 'append_only'))
);
-- The tables of the append-only engine (PostgresFencing.Builder.engine(Engine.APPEND_ONLY); docs/ENGINE.md).
-- Installed with the others, into the same schema: a job is inserted once and never
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

-- A claim of fresh jobs only, in one call (AppendClaims): the window's lock is held for the call alone,
-- not for the round trips of a transaction, so the claims of one queue wait for each other that much
-- less (docs/ENGINE.md, "One round trip under the window's lock"). It answers one row with job id -1,
-- and writes nothing, when the queue has a due requeue row, a live claim whose lease ran out, or no
-- window yet: the claim that merges those by age (AppendClaims' transaction) is then the one to run.
-- Otherwise it does what that transaction does when only fresh jobs are due: locks the window, takes
-- the next jobs of it (and of the next window when it has fewer than p_n), writes the claim row, the
-- hand-outs (epoch: the first of the server's generation p_generation, Generation.CURRENT in the caller's
-- statement; NULL on a standby, where the generation cannot be read, and the call then fails as every other
-- write there does, with SQLSTATE 25006) and the window's move, and answers the jobs
-- with their epoch, payload and lease expiry (microseconds since 1970).
-- Each query of a VOLATILE function takes a new snapshot, so the scan after the lock sees every job
-- the window's hi (taken by the claim that held the lock before) made visible.
-- With p_async its commit does not wait for the WAL flush (synchronous_commit off for its transaction), so
-- the window's lock is not held through the flush; the caller then makes the claim durable before it hands
-- out a job (AppendClaims: a later transaction's synchronous commit flushes all WAL before its own), since a
-- claim lost in a crash would hand the same jobs out again under the same epochs.
-- search_path is the schema it was installed in; sequential scans are priced out as for the other
-- hot statements (RenderedSql.Plan.INDEXED): its plans are cached per connection, the first perhaps
-- while the tables were empty.
-- [jooq ignore start]
CREATE OR REPLACE FUNCTION fencing_append_claim_fresh(p_queue varchar, p_owner varchar, p_micros bigint, p_n integer, p_token uuid, p_async boolean, p_generation bigint)
RETURNS TABLE (o_job_id bigint, o_epoch bigint, o_payload text, o_lease_micros bigint)
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
SET enable_seqscan = off
AS $fencing$
DECLARE
    w_lo text;
    w_hi text;
    w_after_xid bigint;
    w_after_id bigint;
    scan_lo text;
    scan_hi text;
    pos_xid bigint;
    pos_id bigint;
    lim integer;
    next_hi text;
    ids bigint[];
    xids bigint[];
    payloads text[];
    more_ids bigint[];
    more_xids bigint[];
    more_payloads text[];
    in_window integer;
    taken integer;
    moved boolean := false;
    new_lo text;
    new_hi text;
    new_xid bigint;
    new_id bigint;
    first_epoch bigint;
    new_claim bigint;
    expires timestamptz;
BEGIN
    IF p_generation IS NULL THEN
        RAISE EXCEPTION 'cannot execute fencing_append_claim_fresh in a read-only transaction'
            USING ERRCODE = 'read_only_sql_transaction',
                  DETAIL = 'The server is in recovery (a standby): it takes no claims.';
    END IF;
    IF EXISTS (SELECT 1 FROM fencing_append_requeue r WHERE r.queue = p_queue AND r.ready_at <= now())
        OR EXISTS (SELECT 1 FROM fencing_append_claim c WHERE c.queue = p_queue AND c.live AND c.lease_expires_at <= now()) THEN
        RETURN QUERY SELECT -1::bigint, 0::bigint, NULL::text, 0::bigint;
        RETURN;
    END IF;
    SELECT w.lo, w.hi, w.after_xid, w.after_id INTO w_lo, w_hi, w_after_xid, w_after_id
        FROM fencing_append_window w WHERE w.queue = p_queue FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT -1::bigint, 0::bigint, NULL::text, 0::bigint;
        RETURN;
    END IF;
    -- the current window, then, if it has fewer than p_n jobs left, the next one (up to now) from its start
    scan_lo := w_lo;
    scan_hi := w_hi;
    pos_xid := w_after_xid;
    pos_id := w_after_id;
    lim := p_n;
    ids := '{}';
    xids := '{}';
    payloads := '{}';
    FOR pass IN 1..2 LOOP
        -- a position before lo's xmin is raised to it, so the range scan starts at the window (AppendClaims.fresh)
        IF pos_xid < pg_snapshot_xmin(scan_lo::pg_snapshot)::text::bigint THEN
            pos_xid := pg_snapshot_xmin(scan_lo::pg_snapshot)::text::bigint;
            pos_id := 0;
        END IF;
        SELECT coalesce(array_agg(s.id ORDER BY s.xid, s.id), '{}'), coalesce(array_agg(s.xid ORDER BY s.xid, s.id), '{}'),
               coalesce(array_agg(s.payload ORDER BY s.xid, s.id), '{}')
            INTO more_ids, more_xids, more_payloads
            FROM (SELECT j.id, j.xid, j.payload::text AS payload FROM fencing_append_job j
                   WHERE j.queue = p_queue
                     AND j.xid >= pg_snapshot_xmin(scan_lo::pg_snapshot)::text::bigint
                     AND j.xid < pg_snapshot_xmax(scan_hi::pg_snapshot)::text::bigint
                     AND (j.xid, j.id) > (pos_xid, pos_id)
                     AND pg_visible_in_snapshot(j.xid::text::xid8, scan_hi::pg_snapshot)
                     AND NOT pg_visible_in_snapshot(j.xid::text::xid8, scan_lo::pg_snapshot)
                     AND NOT EXISTS (SELECT 1 FROM fencing_append_operated o WHERE o.job_id = j.id)
                   ORDER BY j.xid, j.id
                   LIMIT lim) s;
        ids := ids || more_ids;
        xids := xids || more_xids;
        payloads := payloads || more_payloads;
        IF pass = 1 THEN
            in_window := cardinality(ids);
            EXIT WHEN in_window >= p_n;
            SELECT pg_current_snapshot()::text INTO next_hi;
            EXIT WHEN next_hi = w_hi;
            -- every job of the current window is taken: the window moves on to the next one
            moved := true;
            new_lo := w_hi;
            new_hi := next_hi;
            new_xid := 0;
            new_id := 0;
            scan_lo := w_hi;
            scan_hi := next_hi;
            pos_xid := 0;
            pos_id := 0;
            lim := p_n - in_window;
        ELSIF cardinality(more_ids) > 0 THEN
            new_xid := more_xids[cardinality(more_xids)];
            new_id := more_ids[cardinality(more_ids)];
        END IF;
    END LOOP;
    IF NOT moved AND in_window > 0 THEN
        moved := true;
        new_lo := w_lo;
        new_hi := w_hi;
        new_xid := xids[in_window];
        new_id := ids[in_window];
    END IF;
    IF p_async AND moved THEN
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    IF moved THEN
        UPDATE fencing_append_window SET lo = new_lo, hi = new_hi, after_xid = new_xid, after_id = new_id
            WHERE queue = p_queue;
    END IF;
    taken := cardinality(ids);
    IF taken = 0 THEN
        RETURN;
    END IF;
    -- a fresh job's first epoch: the first of the server's generation, which the caller's statement
    -- computed (Generation.first)
    first_epoch := (p_generation << 32) + 1;
    INSERT INTO fencing_append_claim (queue, owner, lease_expires_at, job_ids, epochs, open, claim_token)
        VALUES (p_queue, p_owner, now() + (p_micros * interval '1 microsecond'), ids,
                array_fill(first_epoch, ARRAY[taken]), taken, p_token)
        RETURNING id, lease_expires_at INTO new_claim, expires;
    INSERT INTO fencing_append_handout (job_id, epoch, claim_id, attempt, came_from, last_error)
        SELECT u.id, first_epoch, new_claim, 1, 'fresh', NULL FROM unnest(ids) AS u(id);
    RETURN QUERY SELECT u.id, first_epoch, u.payload, (extract(epoch FROM expires) * 1000000)::bigint
        FROM unnest(ids, payloads) AS u(id, payload);
END
$fencing$;
-- [jooq ignore stop]

-- Commits without outbox messages, in one call (AppendWrites): what its transaction does for them, in the
-- same order and under the same locks. Locks the claim rows the leases' hand-outs name, in id order; then,
-- from a new snapshot, takes the leases that own their job (the hand-out's claim row has the lease's owner,
-- is live, its lease has not run out and it has not given the job back; the first such lease of a job in
-- the batch), inserts their done rows (a job that already has one keeps it, and is not counted off again:
-- the done row's key is this call's done check, where AppendWrites' transaction looks the row up, since
-- a claim row stays live while other jobs of its batch are open) and counts them off their claim rows. Answers the positions (from 1) of the leases whose commit landed; the caller explains the
-- others, as after its transaction.
-- [jooq ignore start]
CREATE OR REPLACE FUNCTION fencing_append_complete(p_ids bigint[], p_epochs bigint[], p_owners varchar[], p_results text[])
RETURNS TABLE (o_ord integer)
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
SET enable_seqscan = off
AS $fencing$
BEGIN
    PERFORM 1 FROM fencing_append_claim c
        WHERE c.id = ANY (array(SELECT (SELECT h.claim_id FROM fencing_append_handout h WHERE h.job_id = x.id AND h.epoch = x.epoch)
                                  FROM unnest(p_ids, p_epochs) AS x(id, epoch)))
        ORDER BY c.id
        FOR NO KEY UPDATE;
    RETURN QUERY
    WITH owned AS (
        SELECT DISTINCT ON (x.id) x.ord, x.id, x.epoch, x.owner, x.result, o.claim_id, o.attempt, o.queue
            FROM unnest(p_ids, p_epochs, p_owners, p_results) WITH ORDINALITY AS x(id, epoch, owner, result, ord)
            CROSS JOIN LATERAL (
                SELECT h.claim_id, h.attempt, c.queue,
                       c.owner = x.owner AND c.live AND c.lease_expires_at > now() AND NOT (x.id = ANY (c.given_back)) AS owns
                    FROM fencing_append_handout h JOIN fencing_append_claim c ON c.id = h.claim_id
                    WHERE h.job_id = x.id AND h.epoch = x.epoch
                    OFFSET 0) o
            WHERE o.owns
            ORDER BY x.id, x.ord
    ), ended AS (
        INSERT INTO fencing_append_done (job_id, queue, epoch, status, owner, attempts, result, last_error)
            SELECT w.id, w.queue, w.epoch, 'completed', w.owner, w.attempt, w.result::jsonb, NULL FROM owned w
            ON CONFLICT (job_id) DO NOTHING
            RETURNING job_id
    ), counted AS (
        UPDATE fencing_append_claim c SET open = c.open - k.n, live = c.open - k.n > 0
            FROM (SELECT w.claim_id, count(*)::int AS n FROM owned w JOIN ended e ON e.job_id = w.id GROUP BY w.claim_id) k
            WHERE c.id = k.claim_id
    )
    SELECT w.ord::integer FROM owned w JOIN ended e ON e.job_id = w.id;
END
$fencing$;
-- [jooq ignore stop]

-- The versions the schema has had: one row per migration script, written by the script itself as its
-- last statement, in the script's transaction. compatible_from is the oldest schema version whose
-- library may still run on this schema: a script that only adds (an expand step) keeps the previous
-- script's; one that removes what an older library uses (a contract step) raises it. A library refuses
-- a schema older than it needs, and a newer one whose newest row's compatible_from is above its own
-- version (docs/UPGRADING.md).
CREATE TABLE IF NOT EXISTS fencing_schema_version (
    version          integer       NOT NULL,
    description      varchar(200)  NOT NULL,
    compatible_from  integer       NOT NULL,
    installed_at     timestamptz   NOT NULL DEFAULT now(),
    installed_by     varchar(200)  NOT NULL DEFAULT current_user,
    CONSTRAINT fencing_schema_version_pk PRIMARY KEY (version),
    CONSTRAINT fencing_schema_version_ck CHECK (version >= 1 AND compatible_from >= 1 AND compatible_from <= version)
);

-- The schema's engine, when it records none: the engine whose tables alone hold jobs (a schema installed
-- before engines were recorded), else the one the installer was asked for (the transaction's setting
-- fencing.engine, which PostgresFencing sets from Builder.engine), else append_only. To pick the other
-- engine when running this script yourself: SET fencing.engine = 'update_in_place' on its connection
-- before it (SET LOCAL only inside the script's own transaction; with Flyway, in an afterConnect
-- callback: docs/UPGRADING.md).
-- [jooq ignore start]
INSERT INTO fencing_schema (engine)
SELECT CASE
           WHEN EXISTS (SELECT 1 FROM fencing_job) AND NOT EXISTS (SELECT 1 FROM fencing_append_job)
               THEN 'update_in_place'
           WHEN EXISTS (SELECT 1 FROM fencing_append_job) AND NOT EXISTS (SELECT 1 FROM fencing_job)
               THEN 'append_only'
           ELSE coalesce(nullif(current_setting('fencing.engine', true), ''), 'append_only')
       END
WHERE NOT EXISTS (SELECT 1 FROM fencing_schema);

INSERT INTO fencing_schema_version (version, description, compatible_from)
VALUES (1, 'fencing schema', 1)
ON CONFLICT (version) DO NOTHING;
-- [jooq ignore stop]
