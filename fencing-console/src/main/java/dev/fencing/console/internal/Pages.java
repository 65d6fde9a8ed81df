package dev.fencing.console.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.fencing.JobState;
import dev.fencing.console.ConsoleRole;
import dev.fencing.console.internal.Views.QueueView;
import dev.fencing.console.internal.Views.Search;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.admin.JobPage;
import dev.fencing.postgres.admin.JobSearch;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** The console's pages: each reads through {@link PageData} and renders one template. */
final class Pages {

  private static final Pattern JOB = Pattern.compile("/jobs/([0-9]{1,18})");
  private static final int PAGE = 50;
  private static final JsonFactory JSON = new JsonFactory();

  private final PageData data;
  private final ConsoleConfig config;
  private final TemplateEngine templates =
      TemplateEngine.createPrecompiled(
          null,
          ContentType.Html,
          Pages.class.getClassLoader(),
          "dev.fencing.console.internal.pages");

  Pages(PostgresFencing fencing, ConsoleConfig config) {
    this.data = new PageData(fencing);
    this.config = config;
  }

  String schema() {
    return data.schema();
  }

  /** Stops the background reads. */
  void close() {
    data.close();
  }

  void get(String path, HttpServletRequest request, HttpServletResponse response, Frame frame)
      throws IOException {
    switch (path) {
      case "/", "" -> queues(response, frame);
      case "/queues.json" -> queuesJson(response);
      case "/jobs" -> jobs(request, response, frame);
      case "/schedules" ->
          render(
              response,
              "schedules.jte",
              frame.page("Schedules", "schedules"),
              Map.of("schedules", data.schedules()));
      case "/ownerships" ->
          render(
              response,
              "ownerships.jte",
              frame.page("Ownerships", "ownerships"),
              Map.of("ownerships", data.ownerships(), "backlog", data.backlog()));
      default -> {
        Matcher m = JOB.matcher(path);
        if (m.matches()) {
          job(Long.parseLong(m.group(1)), response, frame);
        } else {
          response.sendError(404, "no page " + path);
        }
      }
    }
  }

  void login(HttpServletResponse response, Frame frame, @Nullable String error) throws IOException {
    Map<String, Object> params = new HashMap<>();
    params.put("error", error);
    render(response, "login.jte", frame, params);
  }

  private void queues(HttpServletResponse response, Frame frame) throws IOException {
    render(
        response,
        "queues.jte",
        frame.page("Queues", "queues"),
        Map.of("queues", data.queues(), "backlog", data.backlog()));
  }

  private void queuesJson(HttpServletResponse response) throws IOException {
    List<QueueView> queues = data.queues();
    response.setContentType("application/json");
    try (OutputStream out = response.getOutputStream();
        JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeArrayFieldStart("queues");
      for (QueueView q : queues) {
        json.writeStartObject();
        json.writeStringField("name", q.name());
        json.writeNumberField("pending", q.pending());
        json.writeNumberField("running", q.running());
        json.writeNumberField("failed", q.failed());
        json.writeStringField("oldest", q.oldestPending());
        json.writeStringField("waiting", q.waiting());
        json.writeArrayFieldStart("bars");
        for (Views.Bar b : q.chart().bars()) {
          json.writeStartArray();
          json.writeNumber(b.completedY());
          json.writeNumber(b.completedH());
          json.writeNumber(b.failedY());
          json.writeNumber(b.failedH());
          json.writeString(b.title());
          json.writeEndArray();
        }
        json.writeEndArray();
        json.writeNumberField("completedHour", q.chart().completed());
        json.writeNumberField("failedHour", q.chart().failed());
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeEndObject();
    }
  }

  private void jobs(HttpServletRequest request, HttpServletResponse response, Frame frame)
      throws IOException {
    Search form =
        new Search(
            param(request, "queue"),
            param(request, "state"),
            param(request, "key"),
            param(request, "id"));
    Frame page =
        form.state().equalsIgnoreCase("failed")
            ? frame.page("Failed jobs", "failed")
            : frame.page("Jobs", "jobs");
    JobPage found = new JobPage(List.of(), null);
    String error = null;
    try {
      if (!form.id().isEmpty()) {
        long id = parseLong("id", form.id());
        if (data.job(id, false).isPresent()) {
          response.sendRedirect(page.base() + "/jobs/" + id);
          return;
        }
        error = "No job " + id + ".";
      } else {
        String after = param(request, "after");
        found =
            data.search(
                new JobSearch(
                    blankToNull(form.queue()),
                    state(form.state()),
                    blankToNull(form.key()),
                    after.isEmpty() ? null : parseLong("after", after),
                    PAGE));
      }
    } catch (IllegalArgumentException e) {
      error = e.getMessage();
    }
    Map<String, Object> params = new HashMap<>();
    params.put("form", form);
    params.put("rows", found.jobs().stream().map(PageData::row).toList());
    params.put("next", found.nextAfterId() == null ? null : next(page, form, found.nextAfterId()));
    params.put("error", error);
    render(response, "jobs.jte", page, params);
  }

  private static String next(Frame frame, Search form, long after) {
    return frame.base()
        + "/jobs?queue="
        + enc(form.queue())
        + "&state="
        + enc(form.state())
        + "&key="
        + enc(form.key())
        + "&after="
        + after;
  }

  private void job(long id, HttpServletResponse response, Frame frame) throws IOException {
    boolean showPayload =
        config.showPayloadsToViewers()
            || (frame.user() != null && frame.user().role().covers(ConsoleRole.OPERATOR));
    Optional<Views.JobView> job = data.job(id, showPayload);
    if (job.isEmpty()) {
      response.setStatus(404);
      render(
          response,
          "message.jte",
          frame.page("No job " + id, "jobs"),
          Map.of("message", "No job " + id + " in schema " + data.schema() + "."));
      return;
    }
    render(response, "job.jte", frame.page("Job " + id, "jobs"), Map.of("job", job.get()));
  }

  private void render(
      HttpServletResponse response, String template, Frame frame, Map<String, Object> params)
      throws IOException {
    Map<String, Object> all = new HashMap<>(params);
    all.put("frame", frame);
    StringOutput out = new StringOutput();
    templates.render(template, all, out);
    response.setContentType("text/html; charset=utf-8");
    byte[] bytes = out.toString().getBytes(StandardCharsets.UTF_8);
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }

  private static @Nullable JobState state(String text) {
    if (text.isEmpty()) {
      return null;
    }
    for (JobState s : JobState.values()) {
      if (s.name().equalsIgnoreCase(text)) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        "state must be pending, running, completed or failed, but was '" + text + "'");
  }

  private static long parseLong(String name, String text) {
    try {
      long v = Long.parseLong(text.strip());
      if (v > 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IllegalArgumentException(
        name + " must be a positive whole number, but was '" + text + "'");
  }

  private static String param(HttpServletRequest request, String name) {
    String v = request.getParameter(name);
    return v == null ? "" : v.strip();
  }

  private static @Nullable String blankToNull(String s) {
    return s.isEmpty() ? null : s;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
