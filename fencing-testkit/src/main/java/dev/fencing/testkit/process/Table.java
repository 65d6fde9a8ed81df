package dev.fencing.testkit.process;

import java.util.List;

/**
 * Prints {@link ZombieScenario.Row}s as the seed's table.
 *
 * @since 0.1
 */
public final class Table {

  private static final String[] HEADER = {
    "case", "zombie's receiver call", "zombie's commit", "final state"
  };

  private Table() {}

  /** Returns the rows as an aligned text table with a header. */
  public static String render(List<ZombieScenario.Row> rows) {
    String[][] cells = new String[rows.size() + 1][];
    cells[0] = HEADER;
    for (int i = 0; i < rows.size(); i++) {
      ZombieScenario.Row r = rows.get(i);
      cells[i + 1] =
          new String[] {
            r.ordering().description(), r.zombieCall(), r.zombieCommit(), r.finalState()
          };
    }
    int[] widths = new int[HEADER.length];
    for (String[] row : cells) {
      for (int c = 0; c < row.length; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (int r = 0; r < cells.length; r++) {
      for (int c = 0; c < HEADER.length; c++) {
        out.append(c == 0 ? "| " : " | ").append(pad(cells[r][c], widths[c]));
      }
      out.append(" |\n");
      if (r == 0) {
        for (int c = 0; c < HEADER.length; c++) {
          out.append(c == 0 ? "|-" : "-|-").append("-".repeat(widths[c]));
        }
        out.append("-|\n");
      }
    }
    return out.toString();
  }

  private static String pad(String text, int width) {
    return text + " ".repeat(width - text.length());
  }
}
