package dev.fencing.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The installer's split of the schema SQL into statements: at semicolons, except inside a
 * function's dollar-quoted body, whose own semicolons would otherwise cut it into pieces PostgreSQL
 * refuses.
 */
class InstallerStatementsTest {

  @Test
  void splitsAtSemicolonsAndLeavesBlankStatementsOut() {
    assertThat(Installer.statements("create table a (x int);\n\ncreate index i on a (x);\n"))
        .containsExactly("create table a (x int)", "\n\ncreate index i on a (x)");
  }

  @Test
  void keepsADollarQuotedBodyWhole() {
    String function =
        "create function f() returns int language plpgsql as $body$ begin perform 1; return 2;"
            + " end $body$";
    assertThat(Installer.statements("create table a (x int);" + function + ";select 1;"))
        .containsExactly("create table a (x int)", function, "select 1");
    assertThat(Installer.statements("do $$ begin perform 1; end $$"))
        .containsExactly("do $$ begin perform 1; end $$");
  }

  @Test
  void theSchemaSqlSplitsIntoStatementsThatEachEndOutsideAFunctionBody() {
    assertThat(Installer.statements(Installer.schemaSql().replaceAll("--[^\n]*", "")))
        .anySatisfy(s -> assertThat(s).contains("FUNCTION fencing_append_claim_fresh"))
        .allSatisfy(s -> assertThat(s.split("\\$fencing\\$", -1).length).isIn(1, 3));
  }

  @Test
  void anUnterminatedBodyIsAnError() {
    assertThatThrownBy(() -> Installer.statements("do $$ begin perform 1;"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("unterminated $$");
  }
}
