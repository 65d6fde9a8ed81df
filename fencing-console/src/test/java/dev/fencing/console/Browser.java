package dev.fencing.console;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A real headless Chromium, driven by its ChromeDriver: Debian's {@code chromium} and {@code
 * chromium-driver} by default, or {@code FENCING_CHROMIUM} and {@code FENCING_CHROMEDRIVER}. A test
 * without them fails, saying how to install them; it never skips.
 */
final class Browser implements AutoCloseable {

  static final Duration WAIT = Duration.ofSeconds(15);

  final WebDriver driver;
  private final Path profile;

  private Browser(WebDriver driver, Path profile) {
    this.driver = driver;
    this.profile = profile;
  }

  private static Browser shared;

  /**
   * The browser every test class of this JVM shares (a Chromium start costs about a second), quit
   * when the JVM ends.
   */
  static synchronized Browser shared() {
    if (shared == null) {
      Browser browser = start();
      Runtime.getRuntime().addShutdownHook(new Thread(browser::close, "quit-chromium"));
      shared = browser;
    }
    return shared;
  }

  static Browser start() {
    Path chromium = Path.of(env("FENCING_CHROMIUM", "/usr/bin/chromium"));
    Path chromedriver = Path.of(env("FENCING_CHROMEDRIVER", "/usr/bin/chromedriver"));
    if (!Files.isExecutable(chromium) || !Files.isExecutable(chromedriver)) {
      fail(
          "the console's tests need a real browser, and "
              + chromium
              + " or "
              + chromedriver
              + " is missing: install them (apt-get install chromium chromium-driver), run .ci/run,"
              + " or point FENCING_CHROMIUM and FENCING_CHROMEDRIVER at a Chromium and its"
              + " ChromeDriver");
    }
    try {
      Path profile = Files.createTempDirectory("fencing-console-chromium");
      ChromeOptions options = new ChromeOptions();
      options.setBinary(chromium.toFile());
      // the flags this machine's closed network needs (../shared env notes): no background
      // connections, no QUIC, a fresh profile
      options.addArguments(
          "--headless=new",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--disable-dev-shm-usage",
          "--window-size=1360,900",
          "--user-data-dir=" + profile);
      ChromeDriverService service =
          new ChromeDriverService.Builder()
              .usingDriverExecutable(chromedriver.toFile())
              .usingAnyFreePort()
              .build();
      return new Browser(new ChromeDriver(service, options), profile);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  void open(String url) {
    driver.get(url);
  }

  WebElement find(String css) {
    return driver.findElement(By.cssSelector(css));
  }

  String text(String css) {
    return find(css).getText();
  }

  /** Waits (bounded) until {@code condition} holds on the page. */
  <T> T waitFor(Function<WebDriver, T> condition) {
    return new WebDriverWait(driver, WAIT).until(condition::apply);
  }

  Object script(String js, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(js, args);
  }

  void screenshot(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(file, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
  }

  @Override
  public void close() {
    driver.quit();
    try (var files = Files.walk(profile)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary profile left behind is harmless
    }
  }

  private static String env(String name, String otherwise) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? otherwise : value;
  }
}
