package dev.fencing.zookeeper.internal;

import static dev.fencing.internal.Validate.quote;

import dev.fencing.internal.Validate;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The settings of one ZooKeeper backend, checked once when built.
 *
 * @param connectString the ensemble, {@code host:port[,host:port...]}
 * @param root the znode under which resources live, e.g. {@code /fencing}
 * @param sessionTimeout the session timeout asked of the server, 1 s to 10 min
 * @param connectTimeout how long {@code build()} waits for the first connection, 1 ms to 10 min
 * @param callTimeout how long one request waits for its answer, 1 ms to 10 min
 */
public record Config(
    String connectString,
    String root,
    Duration sessionTimeout,
    Duration connectTimeout,
    Duration callTimeout) {

  private static final Pattern CONNECT =
      Pattern.compile("[A-Za-z0-9.:\\[\\]_-]+(,[A-Za-z0-9.:\\[\\]_-]+)*(/[A-Za-z0-9._/-]*)?");
  private static final Pattern ROOT =
      Pattern.compile("(/[A-Za-z0-9_:-][A-Za-z0-9._:-]{0,99}){1,8}");
  private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

  /**
   * @throws IllegalArgumentException naming the first setting out of range
   */
  public Config {
    if (connectString == null
        || connectString.length() > 2000
        || !CONNECT.matcher(connectString).matches()) {
      throw new IllegalArgumentException(
          "connectString must be host:port[,host:port...], but was " + quote(connectString));
    }
    if (root == null
        || !ROOT.matcher(root).matches()
        || (root.equals("/zookeeper") || root.startsWith("/zookeeper/"))) {
      throw new IllegalArgumentException(
          "root must be an absolute znode path of 1 to 8 segments of A-Z a-z 0-9 . _ : -, not"
              + " starting with . or under /zookeeper, but was "
              + quote(root));
    }
    Validate.between("sessionTimeout", sessionTimeout, Duration.ofSeconds(1), TEN_MINUTES);
    Validate.between("connectTimeout", connectTimeout, Duration.ofMillis(1), TEN_MINUTES);
    Validate.between("callTimeout", callTimeout, Duration.ofMillis(1), TEN_MINUTES);
  }

  /** The persistent node a resource's owner node lives under. */
  String resourcePath(String resource) {
    return root + "/resources/" + resource;
  }

  /** The ephemeral node that says who owns {@code resource}. */
  String ownerPath(String resource) {
    return resourcePath(resource) + "/owner";
  }
}
