package dev.fencing.postgres.internal;

import dev.fencing.Enqueued;
import dev.fencing.JobOptions;
import dev.fencing.KeyedJob;
import dev.fencing.StoreUnavailableException;
import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Record4;
import org.jooq.Row2;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * Enqueue under idempotency keys: an insert that skips taken keys, then a look-up of the rows that
 * hold them, in one transaction. Retried whole after a transient failure: the call's token, written
 * with its rows, tells a retry which rows its own lost try wrote.
 *
 * <p>Two producers racing on one key: the later insert waits for the earlier transaction and then
 * skips the key; the look-up, a new statement, sees the winner's committed row.
 */
final class KeyedEnqueues {

  private static final int CHUNK = 5_000;

  private final Jdbc jdbc;
  private final Config config;
  private final JobStore store;
  private final JsonProbe probe;
  private final Notifier notifier;

  @Inject
  KeyedEnqueues(Jdbc jdbc, Config config, JobStore store, JsonProbe probe, Notifier notifier) {
    this.jdbc = jdbc;
    this.config = config;
    this.store = store;
    this.probe = probe;
    this.notifier = notifier;
  }

  List<Enqueued> enqueue(String queue, List<KeyedJob> jobs) {
    Validate.identifier("queue", queue);
    Batches.keyedJobs(jobs);
    if (jobs.isEmpty()) {
      return List.of();
    }
    for (int i = 0; i < jobs.size(); i++) {
      Text.requireSendable("jobs[" + i + "].payload", jobs.get(i).payload());
    }
    UUID token = UUID.randomUUID();
    try {
      return jdbc.transactionRetried(c -> write(c, queue, jobs, token));
    } catch (StoreUnavailableException e) {
      throw probe.explain(
          e, jobs.stream().map(KeyedJob::payload).toList(), i -> "jobs[" + i + "].payload");
    }
  }

  /**
   * Inserts in the order of the keys, not of the list: two producers racing on the same keys in
   * different orders would otherwise each hold a key the other waits for (a deadlock, which under
   * load outlasted the retries). The outcomes come back in the list's order.
   */
  private List<Enqueued> write(Connection c, String queue, List<KeyedJob> jobs, UUID token)
      throws SQLException {
    Integer[] byKey = new Integer[jobs.size()];
    for (int i = 0; i < byKey.length; i++) {
      byKey[i] = i;
    }
    Arrays.sort(byKey, Comparator.comparing(i -> jobs.get(i).key()));
    Enqueued[] outcomes = new Enqueued[jobs.size()];
    for (int from = 0; from < jobs.size(); from += CHUNK) {
      List<Integer> indexes =
          Arrays.asList(byKey).subList(from, Math.min(jobs.size(), from + CHUNK));
      List<KeyedJob> chunk = indexes.stream().map(jobs::get).toList();
      Map<String, Long> inserted = insert(c, queue, chunk, token);
      Map<String, Found> found =
          inserted.size() == chunk.size() ? Map.of() : lookUp(c, queue, chunk);
      for (int i = 0; i < chunk.size(); i++) {
        KeyedJob job = chunk.get(i);
        int index = indexes.get(i);
        Long id = inserted.get(job.key());
        if (id != null) {
          outcomes[index] = new Enqueued(id, job.key(), true);
          continue;
        }
        Found row = found.get(job.key());
        if (row == null) {
          // the row that held the key was removed between the insert and the look-up: try again
          throw new DataAccessException(
              "key " + Text.quote(job.key()) + " was taken and then freed during the enqueue",
              new SQLException("retry the keyed enqueue", "40001"));
        }
        if (!row.samePayload()) {
          throw new IllegalArgumentException(
              "jobs["
                  + index
                  + "].key "
                  + Text.quote(job.key())
                  + " already names job "
                  + row.id()
                  + " of queue '"
                  + queue
                  + "' with a different payload; nothing was enqueued");
        }
        outcomes[index] = new Enqueued(row.id(), job.key(), token.equals(row.token()));
      }
    }
    List<Enqueued> all = List.of(outcomes);
    if (all.stream().anyMatch(Enqueued::created)) {
      notifier.inTransaction(c, queue);
    }
    return all;
  }

  private Map<String, Long> insert(Connection c, String queue, List<KeyedJob> jobs, UUID token) {
    List<JobOptions> options = jobs.stream().map(KeyedJob::options).toList();
    if (OptionRows.any(options)) {
      Map<String, Long> ids = new HashMap<>();
      OptionRows.keyed(
              jdbc.on(c),
              store,
              queue,
              config.maxAttempts(),
              token,
              jobs.stream().map(KeyedJob::key).toList(),
              jobs.stream().map(KeyedJob::payload).toList(),
              options)
          .fetch()
          .forEach(r -> ids.put(r.get(1, String.class), r.get(0, Long.class)));
      return ids;
    }
    JobStore.JobTable t = store.jobs();
    List<Field<?>> columns =
        new ArrayList<>(List.of(t.queue(), t.payload(), t.maxAttempts(), t.key(), t.token()));
    columns.addAll(t.stamps());
    var insert = jdbc.on(c).insertInto(t.table(), columns);
    for (KeyedJob job : jobs) {
      List<Field<?>> values =
          new ArrayList<>(
              List.of(
                  DSL.val(queue),
                  DSL.val(JSONB.valueOf(job.payload())),
                  DSL.val(config.maxAttempts()),
                  DSL.val(job.key()),
                  DSL.val(token)));
      values.addAll(t.stampValues());
      insert = insert.values(values);
    }
    Map<String, Long> ids = new HashMap<>();
    insert
        .onConflict(t.queue(), t.key())
        .where(t.key().isNotNull())
        .doNothing()
        .returning(t.id(), t.key())
        .fetch()
        .forEach(r -> ids.put(r.get(t.key()), r.get(t.id())));
    return ids;
  }

  /** The rows holding the keys, with whether each payload equals the one given (as jsonb). */
  private Map<String, Found> lookUp(Connection c, String queue, List<KeyedJob> jobs) {
    JobStore.JobTable j = store.jobs();
    @SuppressWarnings("unchecked")
    Row2<String, JSONB>[] rows = new Row2[jobs.size()];
    for (int i = 0; i < jobs.size(); i++) {
      rows[i] = DSL.row(jobs.get(i).key(), JSONB.valueOf(jobs.get(i).payload()));
    }
    Table<?> given = DSL.values(rows).as("given", "k", "p");
    var key = given.field("k", String.class);
    var payload = given.field("p", JSONB.class);
    Map<String, Found> found = new HashMap<>();
    for (Record4<Long, String, UUID, Boolean> r :
        jdbc.on(c)
            .select(j.id(), j.key(), j.token(), DSL.field(j.payload().eq(payload)))
            .from(j.table())
            .join(given)
            .on(j.key().eq(key))
            .where(j.queue().eq(queue))
            .fetch()) {
      found.put(r.value2(), new Found(r.value1(), r.value3(), Boolean.TRUE.equals(r.value4())));
    }
    return found;
  }

  private record Found(
      long id, @org.jspecify.annotations.Nullable UUID token, boolean samePayload) {}
}
