/**
 * The operators' view of a schema, from {@link dev.fencing.postgres.PostgresFencing#admin()}: what
 * a console, a command line or a runbook reads and changes, never what producers and workers need.
 *
 * <ul>
 *   <li>See the queues: {@link dev.fencing.postgres.admin.PostgresAdmin#queues} gives a {@link
 *       dev.fencing.postgres.admin.QueueSummary} per queue (counts by state), {@link
 *       dev.fencing.postgres.admin.PostgresAdmin#activities} a {@link
 *       dev.fencing.postgres.admin.QueueActivity} (its last hour).
 *   <li>Find jobs: a {@link dev.fencing.postgres.admin.JobSearch} gives a {@link
 *       dev.fencing.postgres.admin.JobPage} of {@link dev.fencing.postgres.admin.JobRow}s, the rows
 *       of a list.
 *   <li>Look at one job: {@link dev.fencing.postgres.admin.JobDetails} (the job's {@link
 *       dev.fencing.JobSnapshot} with who held its epochs, {@link
 *       dev.fencing.postgres.admin.EpochOwner}, and its outbox messages, {@link
 *       dev.fencing.postgres.admin.OutboxEntry}), {@link dev.fencing.postgres.admin.JobHistory}
 *       (each claim, {@link dev.fencing.postgres.admin.EpochClaim}, and each refused write, {@link
 *       dev.fencing.postgres.admin.RefusedWrite}) and {@link
 *       dev.fencing.postgres.admin.JobOptionsView} (its priority, group and key).
 *   <li>Change a job: requeue, fail or cancel it; an {@link dev.fencing.postgres.admin.AdminChange}
 *       says what came of it. Purge old finished jobs.
 *   <li>See the rest of the schema: {@link dev.fencing.postgres.admin.OwnershipRow} (owned
 *       resources) and {@link dev.fencing.postgres.admin.OutboxBacklog} (messages not yet
 *       delivered).
 * </ul>
 */
@NullMarked
package dev.fencing.postgres.admin;

import org.jspecify.annotations.NullMarked;
