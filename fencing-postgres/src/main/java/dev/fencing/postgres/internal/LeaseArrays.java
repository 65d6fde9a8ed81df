package dev.fencing.postgres.internal;

import dev.fencing.Lease;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * The leases of a batch as one array per column, in the batch's order: how every batched statement
 * on leases binds them ({@code ids}, {@code owners}, {@code epochs}) and reads them back, each with
 * its position, so that each item gets its own truth, matched on its whole lease.
 */
public record LeaseArrays(Long[] ids, String[] owners, Long[] epochs) {

  /** The arrays of {@code leases}, in their order. */
  public static LeaseArrays of(List<Lease> leases) {
    int n = leases.size();
    Long[] ids = new Long[n];
    String[] owners = new String[n];
    Long[] epochs = new Long[n];
    for (int k = 0; k < n; k++) {
      Lease lease = leases.get(k);
      ids[k] = lease.jobId();
      owners[k] = lease.owner();
      epochs[k] = lease.epoch().value();
    }
    return new LeaseArrays(ids, owners, epochs);
  }

  /** The arrays by the names the statements bind them, in a map the caller may add to. */
  public Map<String, Object> values() {
    Map<String, Object> values = new HashMap<>();
    values.put("ids", ids);
    values.put("owners", owners);
    values.put("epochs", epochs);
    return values;
  }

  /**
   * The leases bound as {@code ids}, {@code owners} and {@code epochs}, then {@code more} arrays,
   * unnested with their position as {@code v(v_id, v_owner, v_epoch, v_<more>..., v_ord)}: the
   * columns {@link LeaseSql#ownsEach} tests. Each of {@code more} is named by its parameter.
   */
  public static Table<?> unnest(RenderedSql.Parameters p, Map<String, Field<?>> more) {
    List<Field<?>> arrays =
        new ArrayList<>(List.of(p.bigints("ids"), p.varchars("owners"), p.bigints("epochs")));
    List<String> columns = new ArrayList<>(List.of("v_id", "v_owner", "v_epoch"));
    more.forEach(
        (name, array) -> {
          arrays.add(array);
          columns.add("v_" + name);
        });
    columns.add("v_ord");
    StringBuilder sql = new StringBuilder("unnest(");
    for (int i = 0; i < arrays.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append('{').append(i).append('}');
    }
    return DSL.table(sql.append(") with ordinality").toString(), arrays.toArray())
        .as("v", columns.toArray(String[]::new));
  }
}
