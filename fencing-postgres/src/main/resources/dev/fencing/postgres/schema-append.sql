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
