package dev.fencing.console;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** A console on loopback over a schema of the test's own, and the browser every class shares. */
@FencingDatabase
abstract class ServedConsole {

  static final String OPERATOR_PASSWORD = "operator-password";
  static final String VIEWER_PASSWORD = "viewer-password";
  static final String OPERATOR_HASH = ConsolePasswords.hash(OPERATOR_PASSWORD.toCharArray());
  static final String VIEWER_HASH = ConsolePasswords.hash(VIEWER_PASSWORD.toCharArray());

  static Browser browser;

  TestSchema schema;
  PostgresFencing fencing;
  ConsoleServer server;

  @BeforeAll
  static void startBrowser() {
    browser = Browser.shared();
  }

  @BeforeEach
  void serve(TestSchema schema) {
    this.schema = schema;
    fencing =
        fencingBuilder(PostgresFencing.builder(schema.pooledDataSource(4)).schema(schema.name()))
            .build();
    FencingConsole console =
        configure(
                FencingConsole.builder(fencing)
                    .user("olivia", OPERATOR_HASH, ConsoleRole.OPERATOR)
                    .user("victor", VIEWER_HASH, ConsoleRole.VIEWER))
            .build();
    server = ConsoleServer.builder(console).start();
    browser.driver.manage().deleteAllCookies();
  }

  /** Lets a test class build its schema's fencing otherwise (an engine). */
  PostgresFencing.Builder fencingBuilder(PostgresFencing.Builder builder) {
    return builder;
  }

  /** Lets a test class configure its console otherwise. */
  FencingConsole.Builder configure(FencingConsole.Builder builder) {
    return builder;
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (fencing != null) {
      fencing.close();
    }
  }

  String url(String path) {
    return server.uri().resolve(path).toString();
  }

  void logIn(String name, String password) {
    browser.open(url("login"));
    browser.find("input[name=name]").sendKeys(name);
    browser.find("input[name=password]").sendKeys(password);
    browser.find("#login").click();
    browser.waitFor(d -> d.getCurrentUrl().endsWith(server.uri().getPort() + "/"));
  }
}
