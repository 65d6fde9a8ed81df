package dev.fencing.postgres.internal;

import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.admin.PostgresAdmin;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The operators' view on the tables of one engine: {@code inplace.InPlaceAdmin} or {@code
 * append.AppendAdmin}, which {@link JobStore#admin} gives, and which {@code
 * PostgresFencing.admin()} hands out once {@link #checkInstalled} passed. No change touches an
 * epoch, so a later claim still takes a larger one; a cancel writes the job's end and its {@code
 * fencing_cancel} row in one transaction, under the lock a commit of the job takes.
 */
public interface Admin extends PostgresAdmin {

  /**
   * Checks that the schema holds the engine's tables with everything this jar reads.
   *
   * @throws SchemaNotInstalledException if it does not, saying how to install
   * @throws StoreUnavailableException if the database could not be reached or refused
   */
  void checkInstalled();

  /**
   * Deletes finished jobs older than {@code olderThan}, {@code batchSize} per transaction (see
   * {@link Retention}).
   *
   * @return how many jobs were deleted
   */
  long purge(Duration olderThan, @Nullable String queue, int batchSize);
}
