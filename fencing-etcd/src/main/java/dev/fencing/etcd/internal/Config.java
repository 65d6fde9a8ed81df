package dev.fencing.etcd.internal;

import static dev.fencing.internal.Validate.quote;

import dev.fencing.internal.Validate;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one etcd backend, checked once when built.
 *
 * @param endpoints the cluster's client URLs, {@code http://host:port}, at least one
 * @param prefix the path every key lives under, such as {@code /fencing}
 * @param callTimeout how long one operation may take, all its requests together
 * @param connectTimeout how long building may wait for the cluster to answer
 */
public record Config(
    List<URI> endpoints, String prefix, Duration callTimeout, Duration connectTimeout) {

  /** The shortest timeout accepted. */
  public static final Duration MIN_TIMEOUT = Duration.ofMillis(1);

  /** The longest timeout accepted. */
  public static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

  private static final Pattern PREFIX = Pattern.compile("(/[A-Za-z0-9._-]+)+");

  /**
   * @throws IllegalArgumentException naming the first setting out of range
   */
  public Config {
    endpoints = endpoints(endpoints);
    prefix = prefix(prefix);
    callTimeout = timeout("callTimeout", callTimeout);
    connectTimeout = timeout("connectTimeout", connectTimeout);
  }

  /**
   * Parses {@code endpoints} given as text.
   *
   * @throws IllegalArgumentException naming {@code endpoints} and the value that is not a URI
   */
  public static List<URI> parse(String @Nullable ... endpoints) {
    if (endpoints == null || endpoints.length == 0) {
      throw new IllegalArgumentException(
          "endpoints must name at least one http://host:port, but was none");
    }
    URI[] uris = new URI[endpoints.length];
    for (int i = 0; i < endpoints.length; i++) {
      String endpoint = endpoints[i];
      if (endpoint == null) {
        throw new IllegalArgumentException("endpoints must be http://host:port URLs, but was null");
      }
      try {
        uris[i] = new URI(endpoint);
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException(
            "endpoints must be http://host:port URLs, but was " + quote(endpoint), e);
      }
    }
    return List.of(uris);
  }

  /** Returns the endpoints as one line for messages: {@code [http://a:2379, http://b:2379]}. */
  public String endpointList() {
    return endpoints.toString();
  }

  private static List<URI> endpoints(@Nullable List<URI> endpoints) {
    if (endpoints == null || endpoints.isEmpty()) {
      throw new IllegalArgumentException(
          "endpoints must name at least one http://host:port, but was "
              + (endpoints == null ? "null" : "none"));
    }
    for (URI endpoint : endpoints) {
      if (endpoint == null
          || !"http".equals(endpoint.getScheme())
          || endpoint.getHost() == null
          || endpoint.getPort() < 1
          || !(endpoint.getRawPath() == null || endpoint.getRawPath().isEmpty())
          || endpoint.getRawQuery() != null
          || endpoint.getRawFragment() != null
          || endpoint.getRawUserInfo() != null) {
        throw new IllegalArgumentException(
            "endpoints must be http://host:port URLs, but was "
                + quote(endpoint == null ? null : endpoint.toString()));
      }
    }
    return List.copyOf(endpoints);
  }

  private static String prefix(@Nullable String prefix) {
    if (prefix == null
        || prefix.length() > 200
        || !PREFIX.matcher(prefix).matches()
        || prefix.contains("/./")
        || prefix.contains("/../")
        || prefix.endsWith("/.")
        || prefix.endsWith("/..")) {
      throw new IllegalArgumentException(
          "prefix must be 1 to 200 characters of /-separated segments of A-Z a-z 0-9 . _ - (such"
              + " as /fencing), starting with / and not ending with it, but was "
              + quote(prefix));
    }
    return prefix;
  }

  private static Duration timeout(String parameter, @Nullable Duration value) {
    return Validate.between(parameter, value, MIN_TIMEOUT, MAX_TIMEOUT);
  }
}
