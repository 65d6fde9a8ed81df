package dev.fencing.console;

import java.util.Objects;

/**
 * Who is using the console, as the audit log names them, and their role.
 *
 * @param name the user's name, or {@code "anonymous@<address>"} for a visitor without credentials
 * @since 0.1
 */
public record ConsoleUser(String name, ConsoleRole role) {

  /**
   * @throws IllegalArgumentException if {@code name} is blank
   * @throws NullPointerException if {@code role} is null
   */
  public ConsoleUser {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(role, "role");
    if (name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank, but was '" + name + "'");
    }
  }
}
