package dev.fencing.postgres.admin;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One page of a {@link JobSearch}: jobs by id, newest first.
 *
 * @param jobs the page's jobs
 * @param nextAfterId the {@link JobSearch#afterId} of the next page (the last job's id) when more
 *     jobs may follow, null when this is the last page
 * @since 0.1
 */
public record JobPage(List<JobRow> jobs, @Nullable Long nextAfterId) {

  public JobPage {
    jobs = List.copyOf(jobs);
  }
}
