package dev.fencing.postgres.internal;

import dev.fencing.postgres.admin.JobHistory;
import dev.fencing.postgres.admin.JobPage;
import dev.fencing.postgres.admin.JobSearch;
import dev.fencing.postgres.admin.QueueActivity;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;

/**
 * What one engine reads of its own tables for the operators' view, each on the connection it is
 * given; {@link EngineAdmin} checks the arguments and runs each as one read.
 */
public interface EngineReads {

  /** The job's claims and its refused writes, newest first, if there is such a job. */
  Optional<JobHistory> history(DSLContext dsl, long jobId);

  /** One page of the jobs {@code search} matches, newest first. */
  JobPage jobs(DSLContext dsl, JobSearch search);

  /** The activity of {@code queue}. */
  QueueActivity activity(DSLContext dsl, String queue);

  /** The activity of {@code queues} and of every queue that finished a job in the hour. */
  List<QueueActivity> activities(DSLContext dsl, Collection<String> queues);
}
