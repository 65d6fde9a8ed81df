package dev.fencing.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which top-level class of a source tree refers to which, read from the Java sources: its imports
 * (static ones too, and wildcards), the simple names of classes of its own package, and fully
 * qualified names in code. Comments and literals are left out, so a name in a Javadoc link or a
 * message is no reference; so is a sealed type's {@code permits} clause, which Java requires.
 */
final class SourceGraph {

  private static final Pattern PACKAGE =
      Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
  private static final Pattern IMPORT =
      Pattern.compile("^\\s*import\\s+(static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;", Pattern.MULTILINE);
  private static final Pattern PERMITS = Pattern.compile("\\bpermits\\s+[\\w.,\\s]+(?=\\{)");
  private static final Pattern IDENTIFIER =
      Pattern.compile("[A-Za-z_$][\\w$]*(?:\\s*\\.\\s*[A-Za-z_$][\\w$]*)*");

  /** Each class (fully qualified) and the classes of the tree it refers to. */
  private final Map<String, Set<String>> references = new TreeMap<>();

  private SourceGraph() {}

  /** Reads every {@code .java} file under the given source roots. */
  static SourceGraph of(List<Path> sourceRoots) {
    Map<String, String> sources = new TreeMap<>();
    for (Path root : sourceRoots) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          String name = file.getFileName().toString().replace(".java", "");
          if (name.equals("module-info") || name.equals("package-info")) {
            continue;
          }
          String code = strip(Files.readString(file));
          Matcher pkg = PACKAGE.matcher(code);
          sources.put((pkg.find() ? pkg.group(1) + "." : "") + name, code);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    SourceGraph graph = new SourceGraph();
    Map<String, Set<String>> byPackage = new HashMap<>();
    sources
        .keySet()
        .forEach(c -> byPackage.computeIfAbsent(packageOf(c), p -> new TreeSet<>()).add(c));
    sources.forEach(
        (type, code) ->
            graph.references.put(type, refers(type, code, sources.keySet(), byPackage)));
    return graph;
  }

  /** The main source roots of the modules directly under {@code repository}. */
  static List<Path> mainSourceRoots(Path repository) {
    try (Stream<Path> modules = Files.list(repository)) {
      return modules
          .map(m -> m.resolve("src/main/java"))
          .filter(Files::isDirectory)
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Returns every set of two or more classes that refer to each other in a circle. */
  List<Set<String>> circles() {
    return new Tarjan(references).components().stream().filter(c -> c.size() > 1).toList();
  }

  /** Returns every class read, fully qualified. */
  Set<String> types() {
    return references.keySet();
  }

  /** Returns the classes {@code type} refers to. */
  Set<String> references(String type) {
    return references.getOrDefault(type, Set.of());
  }

  private static Set<String> refers(
      String type, String code, Set<String> known, Map<String, Set<String>> byPackage) {
    Set<String> found = new TreeSet<>();
    Map<String, String> simpleNames = new HashMap<>();
    for (String sibling : byPackage.getOrDefault(packageOf(type), Set.of())) {
      simpleNames.put(simpleName(sibling), sibling);
    }
    Matcher imports = IMPORT.matcher(code);
    while (imports.find()) {
      String name = imports.group(2);
      if (imports.group(3) != null && byPackage.containsKey(name)) {
        // a wildcard import of a package: its classes become simple names here
        byPackage.get(name).forEach(c -> simpleNames.putIfAbsent(simpleName(c), c));
      } else {
        owner(name, known).ifPresent(found::add);
      }
    }
    // a sealed type must name its subtypes: that back-reference is the language's, not a design's
    String body = PERMITS.matcher(IMPORT.matcher(code).replaceAll("")).replaceAll(" ");
    Matcher names = IDENTIFIER.matcher(body);
    while (names.find()) {
      String name = names.group().replaceAll("\\s", "");
      String first = name.contains(".") ? name.substring(0, name.indexOf('.')) : name;
      if (simpleNames.containsKey(first)) {
        found.add(simpleNames.get(first));
      } else if (name.contains(".")) {
        owner(name, known).ifPresent(found::add);
      }
    }
    found.remove(type);
    return found;
  }

  /** The known class that {@code name} (maybe a nested class or a member) belongs to. */
  private static java.util.Optional<String> owner(String name, Set<String> known) {
    for (String prefix = name;
        prefix.contains(".");
        prefix = prefix.substring(0, prefix.lastIndexOf('.'))) {
      if (known.contains(prefix)) {
        return java.util.Optional.of(prefix);
      }
    }
    return java.util.Optional.empty();
  }

  private static String packageOf(String type) {
    return type.contains(".") ? type.substring(0, type.lastIndexOf('.')) : "";
  }

  private static String simpleName(String type) {
    return type.substring(type.lastIndexOf('.') + 1);
  }

  /** Blanks out comments, string and char literals and text blocks, keeping line breaks. */
  static String strip(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    int n = source.length();
    while (i < n) {
      char c = source.charAt(i);
      if (source.startsWith("//", i)) {
        while (i < n && source.charAt(i) != '\n') {
          i++;
        }
      } else if (source.startsWith("/*", i)) {
        int end = source.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        out.append(' ');
      } else if (source.startsWith("\"\"\"", i)) {
        int end = source.indexOf("\"\"\"", i + 3);
        i = end < 0 ? n : end + 3;
        out.append("\"\"");
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && source.charAt(j) != c) {
          j += source.charAt(j) == '\\' ? 2 : 1;
        }
        i = j + 1;
        out.append(c).append(c);
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** Tarjan's strongly connected components, iterative so that deep graphs do not overflow. */
  private static final class Tarjan {
    private final Map<String, Set<String>> edges;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> low = new HashMap<>();
    private final Deque<String> stack = new ArrayDeque<>();
    private final Set<String> onStack = new java.util.HashSet<>();
    private final List<Set<String>> components = new ArrayList<>();
    private int next;

    Tarjan(Map<String, Set<String>> edges) {
      this.edges = edges;
    }

    List<Set<String>> components() {
      for (String v : edges.keySet()) {
        if (!index.containsKey(v)) {
          visit(v);
        }
      }
      return components;
    }

    private void visit(String root) {
      Deque<Map.Entry<String, java.util.Iterator<String>>> work = new ArrayDeque<>();
      open(root, work);
      while (!work.isEmpty()) {
        Map.Entry<String, java.util.Iterator<String>> top = work.peek();
        String v = top.getKey();
        if (top.getValue().hasNext()) {
          String w = top.getValue().next();
          if (!index.containsKey(w)) {
            open(w, work);
          } else if (onStack.contains(w)) {
            low.put(v, Math.min(low.get(v), index.get(w)));
          }
          continue;
        }
        work.pop();
        if (!work.isEmpty()) {
          String parent = work.peek().getKey();
          low.put(parent, Math.min(low.get(parent), low.get(v)));
        }
        if (low.get(v).equals(index.get(v))) {
          Set<String> component = new TreeSet<>();
          String w;
          do {
            w = stack.pop();
            onStack.remove(w);
            component.add(w);
          } while (!w.equals(v));
          components.add(component);
        }
      }
    }

    private void open(String v, Deque<Map.Entry<String, java.util.Iterator<String>>> work) {
      index.put(v, next);
      low.put(v, next);
      next++;
      stack.push(v);
      onStack.add(v);
      work.push(Map.entry(v, edges.getOrDefault(v, Set.of()).iterator()));
    }
  }
}
