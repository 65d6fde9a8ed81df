package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_SCHEDULE;

import dev.fencing.Enqueued;
import dev.fencing.KeyedJob;
import dev.fencing.postgres.internal.jooq.tables.FencingSchedule;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Record1;
import org.jooq.Record3;
import org.jooq.Row2;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * One advance of a schedule's mark as one statement: a data-modifying {@code WITH} moves the mark
 * by a compare-and-set on revision and mark, and the {@code INSERT} of the slots' jobs selects its
 * rows only if that update matched. Keys already held add no job ({@code ON CONFLICT DO NOTHING}),
 * the second guard behind the mark.
 *
 * @param jobs the job table of the engine in use
 * @param maxAttempts the claims each job gets
 * @param name the schedule
 * @param revision the revision the caller runs
 * @param from the mark the caller read
 * @param to the new mark
 * @param token written with the mark and with the jobs, so that a retry knows its first try
 */
record SlotStatement(
    JobStore.JobTable jobs,
    int maxAttempts,
    String name,
    long revision,
    OffsetDateTime from,
    OffsetDateTime to,
    UUID token) {

  /** Runs it; returns the ids of the jobs it inserted, by key (none if the mark did not move). */
  Map<String, Long> run(DSLContext sql, String queue, List<KeyedJob> slots) {
    FencingSchedule s = FENCING_SCHEDULE;
    var moved =
        sql.update(s)
            .set(s.LAST_SLOT, to)
            .set(s.ADVANCE_TOKEN, token)
            .set(s.UPDATED_AT, DSL.currentOffsetDateTime())
            .where(s.NAME.eq(name))
            .and(s.REVISION.eq(revision))
            .and(s.LAST_SLOT.eq(from));
    if (slots.isEmpty()) {
      moved.execute();
      return Map.of();
    }
    CommonTableExpression<Record1<String>> advanced =
        DSL.name("advanced").fields("name").as(moved.returningResult(s.NAME));
    @SuppressWarnings("unchecked")
    Row2<String, JSONB>[] rows = new Row2[slots.size()];
    for (int i = 0; i < slots.size(); i++) {
      rows[i] = DSL.row(slots.get(i).key(), JSONB.valueOf(slots.get(i).payload()));
    }
    Table<?> given = DSL.values(rows).as("given", "k", "p");
    Field<String> key = given.field("k", String.class);
    Field<JSONB> payload = given.field("p", JSONB.class);
    List<Field<?>> columns =
        jobs.columns(jobs.queue(), jobs.payload(), jobs.maxAttempts(), jobs.key(), jobs.token());
    List<Field<?>> values =
        jobs.values(DSL.val(queue), payload, DSL.val(maxAttempts), key, DSL.val(token));
    return jobs.insertNew(
        sql.with(advanced)
            .insertInto(jobs.table(), columns)
            .select(DSL.select(values).from(given).whereExists(DSL.selectOne().from(advanced))));
  }

  /**
   * The jobs that hold the keys of {@code slots} now, each created if this advance's token wrote
   * it. A key whose job retention removed since is left out.
   */
  List<Enqueued> holders(DSLContext sql, String queue, List<KeyedJob> slots) {
    if (slots.isEmpty()) {
      return List.of();
    }
    Map<String, Record3<Long, String, UUID>> found = new HashMap<>();
    sql.select(jobs.id(), jobs.key(), jobs.token())
        .from(jobs.table())
        .where(jobs.queue().eq(queue))
        .and(jobs.key().in(slots.stream().map(KeyedJob::key).toList()))
        .fetch()
        .forEach(r -> found.put(r.value2(), r));
    List<Enqueued> holders = new ArrayList<>();
    for (KeyedJob slot : slots) {
      Record3<Long, String, UUID> r = found.get(slot.key());
      if (r != null) {
        holders.add(new Enqueued(r.value1(), slot.key(), token.equals(r.value3())));
      }
    }
    return holders;
  }
}
