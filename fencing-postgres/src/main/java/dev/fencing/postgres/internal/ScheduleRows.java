package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_SCHEDULE;

import dev.fencing.Enqueued;
import dev.fencing.KeyedJob;
import dev.fencing.StoreUnavailableException;
import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.internal.jooq.tables.FencingSchedule;
import dev.fencing.postgres.internal.jooq.tables.records.FencingScheduleRecord;
import dev.fencing.spi.ScheduleSnapshot;
import dev.fencing.spi.ScheduleState;
import dev.fencing.spi.ScheduleStore;
import dev.fencing.spi.SlotAdvance;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The schedules' definitions and high-water marks in {@code fencing_schedule}. An advance is one
 * statement ({@link SlotStatement}): in autocommit it is sent, run and committed by the server as
 * one, so a scheduler frozen by {@code SIGSTOP} never holds the schedule's row lock while others
 * wait.
 */
final class ScheduleRows implements ScheduleStore {

  private static final int MAX_DEFINITION = 100_000;

  /** The most jobs one advance enqueues. */
  static final int MAX_JOBS = 10_000;

  private final Jdbc jdbc;
  private final Config config;
  private final JobStore store;
  private final Notifier notifier;

  private final JsonProbe probe;

  @Inject
  ScheduleRows(Jdbc jdbc, Config config, JobStore store, Notifier notifier, JsonProbe probe) {
    this.jdbc = jdbc;
    this.config = config;
    this.store = store;
    this.notifier = notifier;
    this.probe = probe;
  }

  @Override
  public ScheduleState register(String name, long revision, String definition) {
    Validate.scheduleName(name);
    Validate.between("revision", revision, 1, Long.MAX_VALUE);
    Objects.requireNonNull(definition, "definition");
    if (definition.length() > MAX_DEFINITION) {
      throw new IllegalArgumentException(
          "definition must be at most "
              + MAX_DEFINITION
              + " characters, but had "
              + definition.length());
    }
    Text.requireSendable("definition", definition);
    FencingSchedule s = FENCING_SCHEDULE;
    return jdbc.runRetried(
        c -> {
          DSLContext sql = jdbc.on(c);
          sql.insertInto(s, s.NAME, s.REVISION, s.DEFINITION, s.LAST_SLOT)
              .values(
                  DSL.val(name),
                  DSL.val(revision),
                  DSL.val(definition),
                  DSL.currentOffsetDateTime())
              .onConflict(s.NAME)
              .doUpdate()
              .set(s.REVISION, revision)
              .set(s.DEFINITION, definition)
              .set(s.UPDATED_AT, DSL.currentOffsetDateTime())
              .where(s.REVISION.lt(revision))
              .execute();
          return Objects.requireNonNull(stored(c, name), "the row just written");
        });
  }

  @Override
  public ScheduleSnapshot read(Collection<String> names) {
    Objects.requireNonNull(names, "names");
    names.forEach(Validate::scheduleName);
    return snapshot(FENCING_SCHEDULE.NAME.in(names));
  }

  @Override
  public ScheduleSnapshot list() {
    return snapshot(DSL.trueCondition());
  }

  private ScheduleSnapshot snapshot(Condition which) {
    FencingSchedule s = FENCING_SCHEDULE;
    return jdbc.inspectRetried(
        c -> {
          DSLContext sql = jdbc.on(c);
          OffsetDateTime now = sql.select(DSL.currentOffsetDateTime()).fetchSingle().value1();
          List<ScheduleState> states =
              sql.selectFrom(s).where(which).orderBy(s.NAME).fetch(ScheduleRows::state);
          return new ScheduleSnapshot(now.toInstant(), states);
        });
  }

  @Override
  public SlotAdvance advance(
      String name, long revision, Instant from, Instant to, String queue, List<KeyedJob> jobs) {
    Validate.scheduleName(name);
    Validate.between("revision", revision, 1, Long.MAX_VALUE);
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    if (!to.isAfter(from)) {
      throw new IllegalArgumentException("to must be after from (" + from + "), but was " + to);
    }
    Validate.identifier("queue", queue);
    Batches.keyedJobs(jobs);
    Validate.between("jobs.size()", jobs.size(), 0, MAX_JOBS);
    for (int i = 0; i < jobs.size(); i++) {
      Text.requireSendable("jobs[" + i + "].payload", jobs.get(i).payload());
    }
    UUID token = UUID.randomUUID();
    SlotStatement statement =
        new SlotStatement(
            store.jobs(), config.maxAttempts(), name, revision, at(from), at(to), token);
    SlotAdvance advance;
    try {
      advance = jdbc.runRetried(c -> advanceOnce(c, statement, queue, jobs, token));
    } catch (StoreUnavailableException e) {
      throw probe.explain(
          e, jobs.stream().map(KeyedJob::payload).toList(), i -> "jobs[" + i + "].payload");
    }
    if (advance instanceof SlotAdvance.Advanced a
        && a.jobs().stream().anyMatch(Enqueued::created)) {
      notifier.afterCommit(queue);
    }
    return advance;
  }

  private SlotAdvance advanceOnce(
      Connection c, SlotStatement statement, String queue, List<KeyedJob> jobs, UUID token) {
    DSLContext sql = jdbc.on(c);
    Map<String, Long> inserted = statement.run(sql, queue, jobs);
    if (!jobs.isEmpty() && inserted.size() == jobs.size()) {
      List<Enqueued> created = new ArrayList<>(jobs.size());
      for (KeyedJob job : jobs) {
        created.add(new Enqueued(inserted.get(job.key()), job.key(), true));
      }
      return new SlotAdvance.Advanced(created);
    }
    // fewer rows than jobs: the mark did not move, or it did and some keys were taken already,
    // or this is the retry of a try that landed; the token written with the mark tells
    FencingScheduleRecord row =
        sql.selectFrom(FENCING_SCHEDULE)
            .where(FENCING_SCHEDULE.NAME.eq(statement.name()))
            .fetchOne();
    if (row == null || !token.equals(row.getAdvanceToken())) {
      return new SlotAdvance.Refused(row == null ? null : state(row));
    }
    return new SlotAdvance.Advanced(statement.holders(sql, queue, jobs));
  }

  private @Nullable ScheduleState stored(Connection c, String name) {
    FencingScheduleRecord row =
        jdbc.on(c).selectFrom(FENCING_SCHEDULE).where(FENCING_SCHEDULE.NAME.eq(name)).fetchOne();
    return row == null ? null : state(row);
  }

  private static ScheduleState state(FencingScheduleRecord row) {
    return new ScheduleState(
        row.getName(), row.getRevision(), row.getDefinition(), row.getLastSlot().toInstant());
  }

  private static OffsetDateTime at(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }
}
