package dev.fencing.console.internal;

import dev.fencing.StoreUnavailableException;
import dev.fencing.console.ConsoleRole;
import dev.fencing.console.ConsoleUser;
import dev.fencing.postgres.PostgresFencing;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's one servlet: checks who asks and whether they may, then hands the request to a page
 * or an action. Every response forbids framing, sniffing and any script or style not served by the
 * console itself.
 */
public final class ConsoleServlet extends HttpServlet {

  private static final long serialVersionUID = 1L;
  static final String COOKIE = "fencing_console";
  static final String CSRF_FIELD = "csrf";
  private static final Logger LOG = LoggerFactory.getLogger("dev.fencing.console");
  private static final Set<String> STATIC = Set.of("console.js", "console.css");

  private final transient ConsoleConfig config;
  private final transient Set<String> allowedHosts;
  private final transient Sessions sessions = new Sessions();
  private final transient Pages pages;
  private final transient Actions actions;

  public ConsoleServlet(PostgresFencing fencing, ConsoleConfig config, Set<String> allowedHosts) {
    this.config = config;
    this.allowedHosts = Set.copyOf(allowedHosts);
    this.pages = new Pages(fencing, config);
    this.actions = new Actions(fencing.admin());
  }

  @Override
  public void destroy() {
    pages.close();
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    securityHeaders(response);
    if (!allowedHosts.isEmpty() && !allowedHosts.contains(hostOf(request))) {
      // a page of another site that renamed itself to this address (DNS rebinding) is refused
      response.sendError(421, "unknown host");
      return;
    }
    String path = request.getPathInfo() == null ? "/" : request.getPathInfo();
    String method = request.getMethod();
    if (path.startsWith("/static/") && method.equals("GET")) {
      serveStatic(path.substring("/static/".length()), response);
      return;
    }
    Instant now = Instant.now();
    Sessions.Session session = sessions.find(cookie(request), now);
    ConsoleUser bearer = bearer(request);
    ConsoleUser user = bearer != null ? bearer : userOf(request, session);
    try {
      if (path.equals("/login") && config.ownLogin()) {
        login(request, response, session, now);
        return;
      }
      if (user == null) {
        refuseUnknown(request, response, method);
        return;
      }
      if (method.equals("GET") || method.equals("HEAD")) {
        if (session == null && bearer == null) {
          session = sessions.open(null, now);
          setCookie(request, response, session);
        }
        Frame frame = frame(request, user, session);
        pages.get(path, request, response, frame);
      } else if (method.equals("POST")) {
        post(path, request, response, user, session, bearer != null);
      } else {
        response.setHeader("Allow", "GET, HEAD, POST");
        response.sendError(405);
      }
    } catch (StoreUnavailableException e) {
      LOG.warn("console: the database failed", e);
      response.sendError(503, "the database is unavailable: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      response.sendError(400, e.getMessage());
    }
  }

  private void post(
      String path,
      HttpServletRequest request,
      HttpServletResponse response,
      ConsoleUser user,
      Sessions.@Nullable Session session,
      boolean byBearer)
      throws IOException {
    if (!byBearer && (session == null || !session.csrfMatches(request.getParameter(CSRF_FIELD)))) {
      Actions.audit(user, "POST " + path, "refused: missing or wrong CSRF token");
      response.sendError(403, "missing or wrong CSRF token: reload the page and try again");
      return;
    }
    if (path.equals("/logout")) {
      if (session != null) {
        sessions.close(session);
      }
      Actions.audit(user, "logout", "done");
      response.sendRedirect(base(request) + "/login");
      return;
    }
    if (!user.role().covers(ConsoleRole.OPERATOR)) {
      Actions.audit(user, "POST " + path, "refused: needs the operator role");
      response.sendError(403, "this needs the operator role");
      return;
    }
    Actions.Done done = actions.post(path, request, user);
    if (done == null) {
      response.sendError(404);
      return;
    }
    if (session != null) {
      session.flash(done.message(), !done.ok());
    }
    response.setStatus(303);
    response.setHeader("Location", base(request) + done.then());
  }

  private void login(
      HttpServletRequest request,
      HttpServletResponse response,
      Sessions.@Nullable Session session,
      Instant now)
      throws IOException {
    if (session == null) {
      session = sessions.open(null, now);
      setCookie(request, response, session);
    }
    Frame frame = frame(request, session.user, session).page("Log in", "");
    if (request.getMethod().equals("GET")) {
      pages.login(response, frame, null);
      return;
    }
    if (!session.csrfMatches(request.getParameter(CSRF_FIELD))) {
      response.sendError(403, "missing or wrong CSRF token: reload the page and try again");
      return;
    }
    ConsoleUser user =
        Credentials.check(config, request.getParameter("name"), request.getParameter("password"));
    String who = String.valueOf(request.getParameter("name"));
    if (user == null) {
      Actions.audit(
          new ConsoleUser("anonymous@" + request.getRemoteAddr(), ConsoleRole.VIEWER),
          "login as '" + who + "'",
          "refused: wrong name, password or token");
      response.setStatus(401);
      pages.login(response, frame, "Wrong name, password or token.");
      return;
    }
    sessions.close(session);
    Sessions.Session fresh = sessions.open(user, now);
    setCookie(request, response, fresh);
    Actions.audit(user, "login", "done");
    response.setStatus(303);
    response.setHeader("Location", base(request) + "/");
  }

  private void refuseUnknown(HttpServletRequest request, HttpServletResponse response, String m)
      throws IOException {
    if (config.ownLogin() && m.equals("GET")) {
      response.sendRedirect(base(request) + "/login");
    } else if (config.ownLogin()) {
      response.sendError(403, "log in first");
    } else {
      response.setHeader("WWW-Authenticate", "Bearer");
      response.sendError(401, "not authenticated");
    }
  }

  private @Nullable ConsoleUser userOf(
      HttpServletRequest request, Sessions.@Nullable Session session) {
    if (config.authenticator() != null) {
      return config.authenticator().authenticate(request);
    }
    if (session != null && session.user != null) {
      return session.user;
    }
    ConsoleRole anonymous = config.anonymous();
    return anonymous == null
        ? null
        : new ConsoleUser("anonymous@" + request.getRemoteAddr(), anonymous);
  }

  private @Nullable ConsoleUser bearer(HttpServletRequest request) {
    String header = request.getHeader("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    return config.tokens().get(ConsoleConfig.sha256(header.substring(7).trim()));
  }

  private Frame frame(
      HttpServletRequest request, @Nullable ConsoleUser user, Sessions.@Nullable Session session) {
    Sessions.Flash flash = session == null ? null : session.takeFlash();
    return new Frame(
        "fencing",
        base(request),
        pages.schema(),
        user,
        config.ownLogin(),
        session == null ? "" : session.csrf,
        Map.copyOf(config.extraFormFields().apply(request)),
        "",
        flash == null ? null : flash.message(),
        flash != null && flash.error());
  }

  static String base(HttpServletRequest request) {
    return request.getContextPath() + request.getServletPath();
  }

  private static String hostOf(HttpServletRequest request) {
    String host = request.getHeader("Host");
    return host == null ? "" : host.toLowerCase(Locale.ROOT);
  }

  private static @Nullable String cookie(HttpServletRequest request) {
    Cookie[] cookies = request.getCookies();
    if (cookies == null) {
      return null;
    }
    for (Cookie c : cookies) {
      if (c.getName().equals(COOKIE)) {
        return c.getValue();
      }
    }
    return null;
  }

  private static void setCookie(
      HttpServletRequest request, HttpServletResponse response, Sessions.Session session) {
    String path = base(request).isEmpty() ? "/" : base(request);
    response.addHeader(
        "Set-Cookie",
        COOKIE
            + "="
            + session.id
            + "; Path="
            + path
            + "; HttpOnly; SameSite=Strict"
            + (request.isSecure() ? "; Secure" : ""));
  }

  static void securityHeaders(HttpServletResponse response) {
    response.setHeader(
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
            + " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    response.setHeader("X-Content-Type-Options", "nosniff");
    response.setHeader("X-Frame-Options", "DENY");
    response.setHeader("Referrer-Policy", "no-referrer");
    response.setHeader("Cache-Control", "no-store");
  }

  private static void serveStatic(String name, HttpServletResponse response) throws IOException {
    if (!STATIC.contains(name)) {
      response.sendError(404);
      return;
    }
    try (InputStream in =
        ConsoleServlet.class.getResourceAsStream("/dev/fencing/console/static/" + name)) {
      if (in == null) {
        response.sendError(404);
        return;
      }
      response.setContentType(
          name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
      response.setHeader("Cache-Control", "max-age=3600");
      in.transferTo(response.getOutputStream());
    }
  }
}
