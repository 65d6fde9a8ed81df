-- The receiver's one table: the newest accepted epoch and payload per (receiver, key).
-- Idempotent; the installer runs it with search_path set to the target schema, under an advisory lock.
CREATE TABLE IF NOT EXISTS fencing_receipt (
  receiver    varchar(63)  NOT NULL,
  key         varchar(500) NOT NULL,
  epoch       bigint       NOT NULL CHECK (epoch >= 1),
  payload     jsonb        NOT NULL,
  accepted_at timestamptz  NOT NULL DEFAULT now(),
  updated_at  timestamptz  NOT NULL DEFAULT now(),
  PRIMARY KEY (receiver, key)
);
