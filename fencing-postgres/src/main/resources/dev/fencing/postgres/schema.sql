-- The fencing tables: jobs, owned resources, the outbox, receivers' receipts and recurring schedules' marks. This file is the single source of the schema: the
-- installer runs it (after CREATE SCHEMA and SET LOCAL search_path to the schema the user chose), and
-- jOOQ classes are generated from it at build time. Every statement is idempotent, and none
-- takes an ACCESS EXCLUSIVE lock on an existing table, so an install never waits for (or stops) running
-- workers.

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

-- What the schema is: one row, written by the first install that finds none, never changed by the
-- library. engine is how the schema's queues store their jobs (PostgresFencing.Engine, lower case):
-- a handle built with another engine is refused at build(), one built without an engine follows it.
-- A schema installed by running this file by hand has no row until a handle installs it (or an
-- INSERT INTO fencing_schema (engine) VALUES ('append_only') names the engine).
CREATE TABLE IF NOT EXISTS fencing_schema (
    one              boolean       NOT NULL DEFAULT true,
    engine           varchar(32)   NOT NULL,
    installed_at     timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT fencing_schema_pk PRIMARY KEY (one),
    CONSTRAINT fencing_schema_one_ck CHECK (one),
    CONSTRAINT fencing_schema_engine_ck CHECK (engine IN ('update_in_place', 'append_only'))
);
