package dev.fencing.postgres.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.DataType;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.conf.ParamType;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * A hot statement, built with jOOQ's type-safe DSL and rendered once with indexed parameters, then
 * executed many times through JDBC. jOOQ would render the SQL again on every call, which costs
 * about as much client time as the round trip itself on the single-job path.
 *
 * <p>The bind order comes from jOOQ itself ({@link DSLContext#extractBindValues}): each parameter
 * is built by {@link Parameters} with a placeholder value of its own, so the list of bind values
 * jOOQ reports names the parameter behind every {@code ?}.
 *
 * <p>A statement that joins the table to a set (the claim, the batched commit and renewal) is
 * {@linkplain Plan#INDEXED planned with sequential scans priced out}. PostgreSQL caches a generic
 * plan for a named statement, and one cached while the table was nearly empty (a fresh install,
 * before the first analyze) joined the batch to a sequential scan of the whole table, for every
 * call once the table had grown: a claim took 234 ms at 46,000 rows instead of 0.14 ms
 * (docs/BENCHMARKS.md). Planned with {@code enable_seqscan} off, the cached plan reaches the rows
 * through their indexes whatever the statistics said when it was made, and stays right as the table
 * grows. The setting is changed for that statement only: {@code set enable_seqscan = off}, the
 * statement and {@code reset enable_seqscan} go in one round trip and one transaction, so when the
 * statement fails the transaction's abort undoes the {@code set} as well. Planning and parsing are
 * then paid once per connection instead of at every execution, which halved the server's CPU per
 * job with small batches (docs/BENCHMARKS.md). The {@code reset} returns the setting to the role's
 * or database's default, so a session-level {@code SET enable_seqscan} a user made on the
 * connection is lost (the README says so). Behind a pooler in transaction mode the driver is told
 * {@code prepareThreshold=0} (docs/HA.md): the statements go unnamed and are planned at every
 * execution, with the same setting.
 */
public final class RenderedSql {

  /** How the server plans the statement. */
  public enum Plan {
    /**
     * As the driver decides: after a few executions, a named statement whose plan may be cached.
     */
    CACHED,
    /**
     * As {@link #CACHED}, planned with {@code enable_seqscan} off: every plan, cached or not,
     * reaches the table through an index. Execute it with {@link #query} or {@link #update}.
     */
    INDEXED
  }

  private static final String PRICE_OUT_SEQUENTIAL_SCANS = "set enable_seqscan = off; ";
  private static final String RESTORE_SEQUENTIAL_SCANS = "; reset enable_seqscan";

  private final String sql;
  private final List<Parameter> order;
  private final Plan plan;

  public RenderedSql(DSLContext dsl, Query query, Parameters parameters) {
    this(dsl, query, parameters, Plan.CACHED);
  }

  public RenderedSql(DSLContext dsl, Query query, Parameters parameters, Plan plan) {
    this.plan = plan;
    String rendered = dsl.renderContext().paramType(ParamType.INDEXED).render(query);
    this.sql =
        plan == Plan.INDEXED
            ? PRICE_OUT_SEQUENTIAL_SCANS + rendered + RESTORE_SEQUENTIAL_SCANS
            : rendered;
    List<Parameter> found = new ArrayList<>();
    for (Object value : dsl.extractBindValues(query)) {
      Parameter parameter = parameters.byPlaceholder.get(Parameters.key(value));
      if (parameter == null) {
        throw new IllegalStateException("a bind value not made by Parameters: " + value);
      }
      found.add(parameter);
    }
    for (Parameter declared : parameters.byName.values()) {
      if (!found.contains(declared)) {
        throw new IllegalStateException("parameter " + declared.name + " was not bound in " + sql);
      }
    }
    this.order = List.copyOf(found);
  }

  /** Builds a statement, declaring each of its parameters in {@code parameters}. */
  @FunctionalInterface
  public interface Builder {
    Query build(DSLContext dsl, Parameters parameters);
  }

  /**
   * The statement {@code builder} builds, with the parameters it declares, planned as {@code plan}.
   */
  public static RenderedSql of(DSLContext dsl, Plan plan, Builder builder) {
    Parameters parameters = new Parameters();
    return new RenderedSql(dsl, builder.build(dsl, parameters), parameters, plan);
  }

  /** Prepares the statement on {@code connection} with {@code values} bound by name. */
  public PreparedStatement prepare(Connection connection, Map<String, Object> values)
      throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    try {
      for (int i = 0; i < order.size(); i++) {
        Parameter parameter = order.get(i);
        Object value = values.get(parameter.name);
        if (value == null) {
          throw new IllegalStateException("no value for " + parameter.name + " in " + sql);
        }
        if (parameter.arrayType != null) {
          statement.setArray(
              i + 1, connection.createArrayOf(parameter.arrayType, (Object[]) value));
        } else {
          statement.setObject(i + 1, value);
        }
      }
      return statement;
    } catch (SQLException | RuntimeException e) {
      statement.close();
      throw e;
    }
  }

  /**
   * Executes a statement this prepared and returns the result rows of the statement itself (of an
   * {@link Plan#INDEXED} one, not of the setting around it).
   */
  public ResultSet query(PreparedStatement statement) throws SQLException {
    if (plan != Plan.INDEXED) {
      return statement.executeQuery();
    }
    boolean rows = statement.execute(); // the set
    if (!rows) {
      rows = statement.getMoreResults();
    }
    if (!rows) {
      throw new IllegalStateException("no result rows from " + sql);
    }
    return statement.getResultSet();
  }

  /** Executes a statement this prepared and returns the rows the statement itself changed. */
  public int update(PreparedStatement statement) throws SQLException {
    if (plan != Plan.INDEXED) {
      return statement.executeUpdate();
    }
    statement.execute(); // the set
    if (statement.getMoreResults()) {
      throw new IllegalStateException("result rows from " + sql);
    }
    return statement.getUpdateCount();
  }

  @Override
  public String toString() {
    return sql;
  }

  private record Parameter(String name, @org.jspecify.annotations.Nullable String arrayType) {}

  /**
   * The parameters of one statement, by name. Each carries a placeholder value no caller sends,
   * which is how the bind order jOOQ reports is mapped back to names.
   */
  public static final class Parameters {
    private final Map<String, Parameter> byName = new LinkedHashMap<>();
    private final Map<Object, Parameter> byPlaceholder = new HashMap<>();
    private long next;

    public Param<String> varchar(String name) {
      return add(name, null, "\u0000" + name + ":" + next++, SQLDataType.VARCHAR);
    }

    public Param<Long> bigint(String name) {
      return add(name, null, Long.MIN_VALUE + next++, SQLDataType.BIGINT);
    }

    public Param<Integer> integer(String name) {
      return add(name, null, (int) (Integer.MIN_VALUE + next++), SQLDataType.INTEGER);
    }

    public Param<UUID> uuid(String name) {
      return add(name, null, new UUID(Long.MIN_VALUE, next++), SQLDataType.UUID);
    }

    public Param<Long[]> bigints(String name) {
      return add(name, "bigint", new Long[] {Long.MIN_VALUE + next++}, SQLDataType.BIGINT.array());
    }

    public Param<Integer[]> integers(String name) {
      return add(
          name,
          "integer",
          new Integer[] {(int) (Integer.MIN_VALUE + next++)},
          SQLDataType.INTEGER.array());
    }

    public Param<String[]> varchars(String name) {
      return add(
          name,
          "varchar",
          new String[] {"\u0000" + name + ":" + next++},
          SQLDataType.VARCHAR.array());
    }

    public Param<String[]> texts(String name) {
      return add(
          name, "text", new String[] {"\u0000" + name + ":" + next++}, SQLDataType.CLOB.array());
    }

    private <T> Param<T> add(
        String name,
        @org.jspecify.annotations.Nullable String arrayType,
        T placeholder,
        DataType<T> type) {
      Parameter parameter = new Parameter(name, arrayType);
      if (byName.putIfAbsent(name, parameter) != null) {
        throw new IllegalArgumentException("name must be new, but was '" + name + "'");
      }
      byPlaceholder.put(key(placeholder), parameter);
      return DSL.val(placeholder, type);
    }

    private static Object key(Object value) {
      return value instanceof Object[] array ? List.of(array) : value;
    }
  }
}
