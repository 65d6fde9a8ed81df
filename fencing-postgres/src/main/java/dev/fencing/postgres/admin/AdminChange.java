package dev.fencing.postgres.admin;

import dev.fencing.JobState;
import java.util.Objects;

/**
 * What an administrative change of one job ({@code requeue}, {@code fail}) came to.
 *
 * @since 0.1
 */
public sealed interface AdminChange {

  /** The job id the change was asked for. */
  long jobId();

  /**
   * The change was written.
   *
   * @param job the job's row after the change
   */
  record Changed(JobDetails job) implements AdminChange {
    public Changed {
      Objects.requireNonNull(job, "job");
    }

    @Override
    public long jobId() {
      return job.job().id();
    }
  }

  /**
   * Nothing was written: the job is in a state the change does not apply to.
   *
   * @param state the state the job was found in
   * @param reason why, naming the job and the state
   */
  record Refused(long jobId, JobState state, String reason) implements AdminChange {
    public Refused {
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * Nothing was written: no job has that id in the schema.
   *
   * @param schema the schema looked in
   */
  record NotFound(long jobId, String schema) implements AdminChange {
    public NotFound {
      Objects.requireNonNull(schema, "schema");
    }

    /** Returns "no job 42 in schema jobs". */
    public String message() {
      return "no job " + jobId + " in schema " + schema;
    }
  }
}
