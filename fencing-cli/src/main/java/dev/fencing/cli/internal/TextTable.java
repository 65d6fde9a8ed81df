package dev.fencing.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Plain text columns, each as wide as its widest cell; numbers right-aligned. */
final class TextTable {

  private final List<String> header;
  private final boolean[] right;
  private final List<List<String>> rows = new ArrayList<>();

  TextTable(String... header) {
    this.header = List.of(header);
    this.right = new boolean[header.length];
  }

  /** Right-aligns the columns at {@code indexes}. */
  TextTable rightAligned(int... indexes) {
    for (int i : indexes) {
      right[i] = true;
    }
    return this;
  }

  TextTable row(Object... cells) {
    List<String> row = new ArrayList<>(cells.length);
    for (Object cell : cells) {
      row.add(String.valueOf(cell));
    }
    rows.add(row);
    return this;
  }

  void print(PrintWriter out) {
    int[] width = new int[header.size()];
    for (List<String> row : all()) {
      for (int i = 0; i < row.size(); i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    for (List<String> row : all()) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        String cell = row.get(i);
        String pad = " ".repeat(width[i] - cell.length());
        line.append(i == 0 ? "" : "  ").append(right[i] ? pad + cell : cell + pad);
      }
      out.println(line.toString().stripTrailing());
    }
  }

  private List<List<String>> all() {
    List<List<String>> all = new ArrayList<>(rows.size() + 1);
    all.add(header);
    all.addAll(rows);
    return all;
  }
}
