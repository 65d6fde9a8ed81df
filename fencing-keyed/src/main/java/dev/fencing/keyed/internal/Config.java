package dev.fencing.keyed.internal;

import static dev.fencing.internal.Validate.quote;

import dev.fencing.internal.Validate;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one keyed-call client, checked when set.
 *
 * @param baseUri {@code http(s)://host[:port][/path]}, the paths of calls and lookups are appended
 * @param namespace part of every key, so two systems calling one service never share keys
 * @param connectTimeout how long connecting may take
 * @param callTimeout how long one request may wait for its answer
 * @param maxAttempts how many times a call is sent at most, and the key looked up at most
 * @param retryDelay the pause before each lookup and each resend
 * @param lookupPath the path of the lookup, with {@code {key}} where the key goes
 * @param lookupFirst whether the key is looked up before a call is first sent, too
 * @param keyHeader the header the key is sent in
 * @param epochHeader the header the epoch is sent in, for the service's logs
 */
public record Config(
    URI baseUri,
    String namespace,
    Duration connectTimeout,
    Duration callTimeout,
    int maxAttempts,
    Duration retryDelay,
    String lookupPath,
    boolean lookupFirst,
    String keyHeader,
    String epochHeader) {

  private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
  private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9._:/-]{1,200}");
  private static final Pattern HEADER = Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}");
  // headers java.net.http sets itself and refuses to take from a caller
  private static final Set<String> RESTRICTED =
      Set.of("connection", "content-length", "expect", "host", "upgrade");

  /**
   * @throws IllegalArgumentException naming the first setting that is not valid, and its value
   */
  public Config {
    baseUri = baseUri(baseUri);
    namespace = namespace(namespace);
    connectTimeout = timeout("connectTimeout", connectTimeout);
    callTimeout = timeout("callTimeout", callTimeout);
    maxAttempts = maxAttempts(maxAttempts);
    retryDelay = retryDelay(retryDelay);
    lookupPath = lookupPath(baseUri, lookupPath);
    headers(keyHeader, epochHeader);
  }

  /** Returns {@code namespace} if it is 1 to 200 of A-Z a-z 0-9 {@code . _ : / -}. */
  public static String namespace(@Nullable String namespace) {
    return matching("namespace", namespace, NAMESPACE, "1 to 200 of A-Z a-z 0-9 . _ : / -");
  }

  /** Returns {@code value} if it is between 1 ms and 10 min. */
  public static Duration timeout(String parameter, @Nullable Duration value) {
    return Validate.between(parameter, value, Duration.ofMillis(1), MAX_TIMEOUT);
  }

  /** Returns {@code maxAttempts} if it is between 1 and 100. */
  public static int maxAttempts(int maxAttempts) {
    return Validate.between("maxAttempts", maxAttempts, 1, 100);
  }

  /** Returns {@code retryDelay} if it is between zero and 10 min. */
  public static Duration retryDelay(@Nullable Duration retryDelay) {
    return Validate.between("retryDelay", retryDelay, Duration.ZERO, MAX_TIMEOUT);
  }

  /** Checks both header names, and that they differ. */
  public static void headers(@Nullable String keyHeader, @Nullable String epochHeader) {
    String key = header("keyHeader", keyHeader);
    if (key.equalsIgnoreCase(header("epochHeader", epochHeader))) {
      throw new IllegalArgumentException(
          "epochHeader must differ from keyHeader, but both were '" + keyHeader + "'");
    }
  }

  /**
   * Returns the URI of {@code path} under the base URI.
   *
   * @param parameter the parameter's name, for the message
   * @throws IllegalArgumentException naming {@code parameter} if {@code path} does not start with
   *     {@code /}, is longer than 2,000 characters or is not a valid URI path
   */
  public URI resolve(String parameter, @Nullable String path) {
    return resolve(baseUri, parameter, path);
  }

  private static URI resolve(URI baseUri, String parameter, @Nullable String path) {
    if (path == null || !path.startsWith("/") || path.length() > 2_000) {
      throw new IllegalArgumentException(
          parameter + " must start with / and be at most 2000 characters, but was " + quote(path));
    }
    String base = baseUri.toString();
    try {
      return new URI((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + path);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          parameter + " must be a valid URI path, but was " + quote(path), e);
    }
  }

  /** Returns the lookup URI of {@code key} (a hex key needs no escaping). */
  public URI lookup(String key) {
    return resolve("lookupPath", lookupPath.replace("{key}", key));
  }

  /** Returns {@code uri} if it is an {@code http(s)://host[:port][/path]} URL. */
  public static URI baseUri(@Nullable URI uri) {
    if (uri == null
        || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
        || uri.getHost() == null
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null
        || uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "baseUri must be an http(s)://host[:port][/path] URL without query, fragment or user,"
              + " but was "
              + quote(uri == null ? null : uri.toString()));
    }
    return uri;
  }

  /** Returns {@code path} if it starts with / and holds {@code {key}}. */
  public static String lookupPath(URI baseUri, @Nullable String path) {
    if (path == null || !path.contains("{key}")) {
      throw new IllegalArgumentException(
          "lookupPath must hold {key} where the key goes, but was " + quote(path));
    }
    resolve(baseUri, "lookupPath", path.replace("{key}", "0"));
    return path;
  }

  private static String header(String parameter, @Nullable String name) {
    String checked =
        matching(parameter, name, HEADER, "an HTTP header name of 1 to 100 characters");
    if (RESTRICTED.contains(checked.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(
          parameter + " must not be a header the HTTP client sets itself, but was " + quote(name));
    }
    return checked;
  }

  private static String matching(
      String parameter, @Nullable String value, Pattern pattern, String what) {
    if (value == null || !pattern.matcher(value).matches()) {
      throw new IllegalArgumentException(
          parameter + " must be " + what + ", but was " + quote(value));
    }
    return value;
  }
}
