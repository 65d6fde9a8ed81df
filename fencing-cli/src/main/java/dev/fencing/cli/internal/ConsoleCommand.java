package dev.fencing.cli.internal;

import dev.fencing.cli.ExitCode;
import dev.fencing.console.ConsolePasswords;
import dev.fencing.console.ConsoleRole;
import dev.fencing.console.ConsoleServer;
import dev.fencing.console.FencingConsole;
import dev.fencing.postgres.PostgresFencing;
import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fencing console}: the operator's web console on this machine, until Ctrl-C. */
@Command(
    name = "console",
    mixinStandardHelpOptions = true,
    description = {
      "Serve the operator's web console for the schema until Ctrl-C: queues, jobs, epochs,"
          + " refused writes, and the actions on failed jobs.",
      "On loopback (the default) visitors are viewers without logging in; elsewhere every user"
          + " needs --login or --token-env.",
      "--hash-password reads a password (from the terminal, or one line of standard input) and"
          + " prints the hash --login takes."
    })
public final class ConsoleCommand extends DatabaseCommand {

  @Option(
      names = "--port",
      defaultValue = "8081",
      description = "port, 0 for any free one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "address to bind, 0.0.0.0 for every interface (default: ${DEFAULT-VALUE})")
  String host = "127.0.0.1";

  @Option(
      names = "--anonymous",
      paramLabel = "ROLE",
      description =
          "role of visitors without credentials: viewer, operator or none (default:"
              + " viewer on loopback; none is the only choice elsewhere)")
  @Nullable String anonymous;

  @Option(
      names = "--login",
      paramLabel = "NAME:HASH:ROLE",
      description =
          "a user who logs in with a password, given as its hash (--hash-password);"
              + " ROLE viewer or operator; repeatable")
  List<String> users = new ArrayList<>();

  @Option(
      names = "--token-env",
      paramLabel = "VAR:ROLE",
      description =
          "a bearer token read from the environment variable VAR (at least 32"
              + " characters; never on the command line), for ROLE viewer or operator; repeatable")
  List<String> tokenEnvs = new ArrayList<>();

  @Option(names = "--show-payloads", description = "show payloads and results to viewers too")
  boolean showPayloads;

  @Option(
      names = "--hash-password",
      description = "read a password and print its hash for --login, then exit")
  boolean hashPassword;

  @Override
  public void run() {
    if (hashPassword) {
      char[] password = readPassword();
      try {
        out().println(ConsolePasswords.hash(password));
      } finally {
        Arrays.fill(password, '\0');
      }
      return;
    }
    if (port < 0 || port > 65_535) {
      throw new CliException(ExitCode.USAGE, "--port must be between 0 and 65535, but was " + port);
    }
    boolean loopback = loopback(host);
    ConsoleRole anonymousRole = anonymousRole(loopback);
    List<Login> logins = logins();
    if (anonymousRole == null && logins.isEmpty()) {
      throw new CliException(
          ExitCode.USAGE,
          (loopback ? "--anonymous none" : "--host " + host + " (not loopback)")
              + " lets nobody in without credentials: give --login NAME:HASH:ROLE or --token-env"
              + " VAR:ROLE");
    }
    PostgresFencing fencing = database.fencing();
    try {
      DatabaseOptions.reported(fencing::admin);
      FencingConsole.Builder builder =
          FencingConsole.builder(fencing)
              .showPayloadsToViewers(showPayloads)
              .anonymous(anonymousRole);
      logins.forEach(login -> login.addTo(builder));
      serve(fencing, builder.build());
    } catch (RuntimeException e) {
      fencing.close();
      throw e;
    }
  }

  /** A user or a token, checked. */
  private record Login(
      String name, @Nullable String hash, @Nullable String token, ConsoleRole role) {
    void addTo(FencingConsole.Builder builder) {
      if (hash != null) {
        builder.user(name, hash, role);
      } else if (token != null) {
        builder.token(name, token, role);
      }
    }
  }

  /** The users and tokens of the options, checked before anything connects. */
  private List<Login> logins() {
    List<Login> logins = new ArrayList<>();
    for (String user : users) {
      int first = user.indexOf(':');
      int last = user.lastIndexOf(':');
      if (first <= 0 || last <= first + 1) {
        throw new CliException(
            ExitCode.USAGE, "--login must be NAME:HASH:ROLE, but was '" + shortened(user) + "'");
      }
      String name = user.substring(0, first);
      String hash = user.substring(first + 1, last);
      ConsoleRole role = role("--login " + name, user.substring(last + 1));
      try {
        ConsolePasswords.checkHash(hash);
      } catch (IllegalArgumentException e) {
        throw new CliException(ExitCode.USAGE, "--login " + name + ": " + e.getMessage());
      }
      logins.add(new Login(name, hash, null, role));
    }
    for (String tokenEnv : tokenEnvs) {
      int colon = tokenEnv.indexOf(':');
      if (colon <= 0) {
        throw new CliException(
            ExitCode.USAGE, "--token-env must be VAR:ROLE, but was '" + tokenEnv + "'");
      }
      String variable = tokenEnv.substring(0, colon);
      ConsoleRole role = role("--token-env " + variable, tokenEnv.substring(colon + 1));
      String token = System.getenv(variable);
      if (token == null || token.strip().length() < 32) {
        throw new CliException(
            ExitCode.USAGE,
            "--token-env "
                + variable
                + ": the environment variable must hold a token of at least 32 characters, but "
                + (token == null ? "is not set" : "has " + token.strip().length()));
      }
      logins.add(new Login(variable, null, token.strip(), role));
    }
    return logins;
  }

  private void serve(PostgresFencing fencing, FencingConsole console) {
    ConsoleServer server;
    try {
      server = ConsoleServer.builder(console).host(host).port(port).start();
    } catch (IllegalStateException e) {
      throw new CliException(ExitCode.USAGE, e.getMessage());
    }
    CountDownLatch stopped = new CountDownLatch(1);
    AtomicBoolean closed = new AtomicBoolean();
    Runnable stop =
        () -> {
          if (closed.compareAndSet(false, true)) {
            server.close();
            fencing.close();
          }
          stopped.countDown();
        };
    Thread hook = new Thread(stop, "fencing-console-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    out()
        .println(
            "console at " + server.uri() + " (schema " + fencing.schema() + "); Ctrl-C to stop");
    out().flush();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it closes
      }
      stop.run();
    }
  }

  private @Nullable ConsoleRole anonymousRole(boolean loopback) {
    if (anonymous == null) {
      return loopback ? ConsoleRole.VIEWER : null;
    }
    if (anonymous.strip().equalsIgnoreCase("none")) {
      return null;
    }
    ConsoleRole role = role("--anonymous", anonymous);
    if (!loopback) {
      throw new CliException(
          ExitCode.USAGE,
          "--anonymous must be none with --host "
              + host
              + " (not loopback): there, every user needs --login or --token-env");
    }
    return role;
  }

  private static ConsoleRole role(String option, String role) {
    return switch (role.strip().toLowerCase(Locale.ROOT)) {
      case "viewer" -> ConsoleRole.VIEWER;
      case "operator" -> ConsoleRole.OPERATOR;
      default ->
          throw new CliException(
              ExitCode.USAGE,
              option
                  + ": the role must be viewer or operator"
                  + (option.equals("--anonymous") ? " (or none)" : "")
                  + ", but was '"
                  + role
                  + "'");
    };
  }

  private static boolean loopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw new CliException(ExitCode.USAGE, "--host " + host + " does not resolve");
    }
  }

  private static String shortened(String text) {
    return text.length() <= 24 ? text : text.substring(0, 24) + "...";
  }

  /**
   * Whether {@code console} is a terminal: Java 22 to 24 return a console for redirected standard
   * streams too (Console.isTerminal, from Java 22, tells); before 22 there is none then.
   */
  private static boolean isTerminal(Console console) {
    try {
      return (boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }

  /** The password from the terminal, asked twice; or one line of standard input without one. */
  private static char[] readPassword() {
    Console terminal = System.console();
    if (terminal != null && isTerminal(terminal)) {
      char[] password = terminal.readPassword("password (at least 8 characters): ");
      char[] again = terminal.readPassword("again: ");
      if (password == null || again == null || !Arrays.equals(password, again)) {
        throw new CliException(ExitCode.USAGE, "--hash-password: the two passwords differ");
      }
      Arrays.fill(again, '\0');
      return password;
    }
    try {
      // not closed: that would close System.in
      String line =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      if (line == null) {
        throw new CliException(
            ExitCode.USAGE, "--hash-password read no password from standard input");
      }
      return line.toCharArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
