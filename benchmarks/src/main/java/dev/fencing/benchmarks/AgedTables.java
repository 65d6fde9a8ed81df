package dev.fencing.benchmarks;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * What {@code RetentionBenchmark} needs to know of one engine's tables: how to build a queue on
 * them, fill the queue's backlog, age them in bulk as real processing would, prepare a variant and
 * report their storage. The measuring (claims timed one by one, maintenance in a loop, the long
 * transaction, the report's main table) is the same for every engine.
 */
interface AgedTables {

  /** The report section's title, the prefix of the benchmark's schemas, the variants in order. */
  Names names();

  /** A builder on {@code schema}'s tables, with the engine set. */
  PostgresFencing.Builder builder(DataSource ds, String schema);

  /** Gives the fresh {@code schema} the settings {@code variant} measures (storage, autovacuum). */
  void prepare(DataSource ds, String schema, RetentionVariant variant) throws SQLException;

  /** Adds jobs to {@code queue} until it has {@code backlog} not yet handed out. */
  void topUp(DataSource ds, String schema, String queue, int backlog);

  /**
   * Ages {@code schema}'s tables from {@code from} to {@code to} processed jobs of {@code queue},
   * {@code chunk} at a time; the newest tenth of the step's jobs finish now, the others a day ago.
   */
  void age(DataSource ds, String schema, String queue, long from, long to, int chunk)
      throws SQLException;

  /** The table the long transaction reads to take its snapshot. */
  String jobTable();

  /** The tables' rows and storage after a row's window. */
  Storage storage(DataSource ds, String schema) throws SQLException;

  /** The report's columns after "p50 vs fresh": the header's cells and the separator's. */
  String storageHeader();

  /** The separator cells of {@link #storageHeader()}. */
  String storageSeparator();

  /**
   * The header and separator of a second table, every table's storage per row, each row's cells
   * then {@link Storage#detail()}; empty for none.
   */
  default String detailHeader() {
    return "";
  }

  /** What the report says of the aging, the variants and the storage columns (one paragraph). */
  String describe(RetentionSettings settings);

  /**
   * One row's storage.
   *
   * @param jobRows the job table's rows (finished jobs retention has not removed yet included)
   * @param cells the report's storage cells, {@code " a | b | c"} without the last {@code |}
   * @param detail the cells of a row of {@link #detailHeader()}'s table, as {@code cells}; empty
   *     for none
   */
  record Storage(long jobRows, String cells, String detail) {}

  /** Claims and commits, through the API, everything {@code queue} has ready. */
  static void drain(FencedQueue queue, String name) {
    while (true) {
      List<Job> jobs = queue.claimBatch(name, "drain", Duration.ofMinutes(5), 1_000);
      if (jobs.isEmpty()) {
        return;
      }
      List<FencedQueue.Completion> completions = new ArrayList<>(jobs.size());
      for (Job job : jobs) {
        completions.add(new FencedQueue.Completion(job.lease(), "{}", List.of()));
      }
      queue.completeAll(completions);
    }
  }

  /** What a run on these tables is called, and what it measures. */
  record Names(String title, String schemaPrefix, List<RetentionVariant> variants) {

    Names(String title, String schemaPrefix, RetentionVariant... variants) {
      this(title, schemaPrefix, List.of(variants));
    }
  }
}
