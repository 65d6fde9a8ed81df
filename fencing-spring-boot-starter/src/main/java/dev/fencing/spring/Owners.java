package dev.fencing.spring;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** The default owner name: the host name and the process id. */
final class Owners {

  private Owners() {}

  /** Returns {@code <host>-<pid>}, the host cut to 150 characters. */
  static String hostAndPid() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      String env = System.getenv("HOSTNAME");
      host = env == null || env.isBlank() ? "localhost" : env;
    }
    if (host.length() > 150) {
      host = host.substring(0, 150);
    }
    return host + "-" + ProcessHandle.current().pid();
  }
}
