package example.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * This project is docs/SPRING.md's complete application: its sources and properties are the page's
 * blocks, and its build has the page's parent, imports and dependencies (and, besides, only what
 * its own test needs).
 */
class SpringDocsTest {

  private static final Path ROOT = Path.of(System.getProperty("fencing.root"));
  private static final Path APP = ROOT.resolve("consumer-test/src/it/spring-boot-app/src/main");
  private static final Path HERE = Path.of(System.getProperty("basedir"));

  @Test
  void theSourcesAndPropertiesAreThePagesBlocks() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/SPRING.md"));
    assertThat(fenced(marked(page, "spring sample properties"), "properties"))
        .containsExactly(Files.readString(APP.resolve("resources/application.properties")));
    List<String> sources = new ArrayList<>();
    try (var files = Files.list(APP.resolve("java/example/boot"))) {
      for (Path file : files.sorted().toList()) {
        sources.add(Files.readString(file));
      }
    }
    assertThat(fenced(marked(page, "spring sample java"), "java"))
        .containsExactlyInAnyOrderElementsOf(sources);
  }

  @Test
  void theBuildIsThePagesPom() throws Exception {
    String page = Files.readString(ROOT.resolve("docs/SPRING.md"));
    String shown = fenced(marked(page, "spring sample pom"), "xml").getFirst();
    Element docs = parse(shown);
    Element pom = parse(Files.readString(HERE.resolve("pom.xml")));

    Element parent = child(pom, "parent");
    assertThat(text(child(docs, "parent"), "artifactId"))
        .isEqualTo(text(parent, "artifactId"))
        .isEqualTo("spring-boot-starter-parent");
    assertThat(shown).as("the parent's version").contains(text(parent, "version"));
    assertThat(coordinates(child(docs, "dependencyManagement")))
        .isEqualTo(coordinates(child(pom, "dependencyManagement")));
    assertThat(coordinates(docs))
        .isEqualTo(coordinates(pom).stream().filter(c -> !c.endsWith(":test")).toList());
    assertThat(shown).contains("<artifactId>spring-boot-maven-plugin</artifactId>");
    assertThat(text(child(docs, "properties"), "java.version"))
        .isEqualTo(text(child(pom, "properties"), "java.version"));
  }

  /** The text between the page's begin and end markers of {@code name}. */
  private static String marked(String page, String name) {
    String begin = "<!-- begin: " + name + " -->";
    String end = "<!-- end: " + name + " -->";
    assertThat(page).contains(begin, end);
    return page.substring(page.indexOf(begin) + begin.length(), page.indexOf(end));
  }

  /** The bodies of the fenced code blocks in {@code language}, in order. */
  private static List<String> fenced(String text, String language) {
    String open = "```" + language + "\n";
    List<String> blocks = new ArrayList<>();
    for (int at = text.indexOf(open); at >= 0; at = text.indexOf(open, at)) {
      int start = at + open.length();
      int end = text.indexOf("```", start);
      blocks.add(text.substring(start, end));
      at = end + 3;
    }
    assertThat(blocks).isNotEmpty();
    return blocks;
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
    List<Element> found = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node node = nodes.item(i);
      if (node instanceof Element e) {
        found.add(e);
      }
    }
    return found;
  }

  private static Element child(Element parent, String name) {
    for (Element e : elements(parent)) {
      if (e.getTagName().equals(name)) {
        return e;
      }
    }
    throw new AssertionError("no <" + name + "> in <" + parent.getTagName() + ">");
  }

  private static String text(Element parent, String name) {
    for (Element e : elements(parent)) {
      if (e.getTagName().equals(name)) {
        return e.getTextContent().strip();
      }
    }
    return "";
  }
}
