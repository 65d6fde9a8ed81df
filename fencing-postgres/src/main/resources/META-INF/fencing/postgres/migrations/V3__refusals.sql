-- Refused writes (issue 37, the operator's console): what a write under a lease was refused for, kept
-- so that a job's page can show it. An expand step: it only creates a table and its index, which no
-- earlier library reads or locks, so a V1 or V2 library keeps running on a V3 schema (compatible_from
-- stays 1; docs/UPGRADING.md). No live table is altered. Every statement is idempotent.

-- One row per refused complete, fail, renew or release, written after the refusal was known, by a
-- statement of its own on the refusal path only (a write that lands never touches it), best effort:
-- when the insert fails the caller still gets its refusal. At most the newest 50 per job are kept (each
-- insert deletes the older ones); deleted with the job by retention.
CREATE TABLE IF NOT EXISTS fencing_refusal (
    job_id           bigint        NOT NULL,
    -- the epoch of the lease whose write was refused
    epoch            bigint        NOT NULL,
    owner            text          NOT NULL,
    -- complete | fail | renew | release
    action           text          NOT NULL,
    -- the FencedOutcome.Refused case: Superseded | LeaseExpired | NotOwner | AlreadyFinished | Removed | Cancelled
    kind             text          NOT NULL,
    -- one line for a person: "epoch 1 superseded by epoch 2 held by worker-b"
    reason           text          NOT NULL,
    at               timestamptz   NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX IF NOT EXISTS fencing_refusal_job_ix ON fencing_refusal (job_id, at);

-- [jooq ignore start]
INSERT INTO fencing_schema_version (version, description, compatible_from)
VALUES (3, 'refusals', 1)
ON CONFLICT (version) DO NOTHING;
-- [jooq ignore stop]
