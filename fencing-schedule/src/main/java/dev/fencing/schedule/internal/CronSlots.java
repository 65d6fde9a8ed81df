package dev.fencing.schedule.internal;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * The slots of a cron expression in a time zone, by cron-utils: five fields are Unix cron, six
 * Spring's (seconds first). The parser's types stay in here.
 */
public final class CronSlots implements Slots {

  private static final CronParser UNIX =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
  private static final CronParser WITH_SECONDS =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));

  private final ExecutionTime times;
  private final ZoneId zone;

  private CronSlots(ExecutionTime times, ZoneId zone) {
    this.times = times;
    this.zone = zone;
  }

  /**
   * Returns {@code expression} if it parses.
   *
   * @throws IllegalArgumentException naming the expression and the parser's reason
   */
  public static String check(String expression) {
    parse(expression);
    return expression;
  }

  static CronSlots of(String expression, ZoneId zone) {
    return new CronSlots(ExecutionTime.forCron(parse(expression)), zone);
  }

  private static com.cronutils.model.Cron parse(String expression) {
    if (expression == null) {
      throw new IllegalArgumentException("expression must be a cron expression, but was null");
    }
    String trimmed = expression.trim();
    int fields = trimmed.isEmpty() ? 0 : trimmed.split("\\s+").length;
    if (fields != 5 && fields != 6) {
      throw new IllegalArgumentException(
          "expression must have 5 fields (Unix) or 6 (seconds first), but had "
              + fields
              + ": '"
              + expression
              + "'");
    }
    try {
      return (fields == 5 ? UNIX : WITH_SECONDS).parse(trimmed).validate();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "expression '" + expression + "' is not a valid cron expression: " + e.getMessage(), e);
    }
  }

  @Override
  public Optional<Instant> next(Instant after) {
    return times.nextExecution(ZonedDateTime.ofInstant(after, zone)).map(ZonedDateTime::toInstant);
  }

  /**
   * Walks forward from two slots back, so that it agrees with {@link #next}: cron-utils' backward
   * search finds both occurrences of a wall-clock time that happens twice when clocks go back, its
   * forward search only the first.
   */
  @Override
  public Optional<Instant> latest(Instant atOrBefore) {
    ZonedDateTime second =
        ZonedDateTime.ofInstant(atOrBefore.truncatedTo(ChronoUnit.SECONDS), zone);
    Optional<ZonedDateTime> back =
        times.isMatch(second) ? Optional.of(second) : times.lastExecution(second);
    if (back.isEmpty()) {
      return Optional.empty();
    }
    Instant from = times.lastExecution(back.get()).orElse(back.get()).toInstant().minusNanos(1);
    Optional<Instant> latest = Optional.empty();
    for (Optional<Instant> s = next(from);
        s.isPresent() && !s.get().isAfter(atOrBefore);
        s = next(s.get())) {
      latest = s;
    }
    return latest;
  }
}
