package dev.apkrelay.client.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The core and the strategies are platform-free: no compiled class of theirs names android.*. */
class BoundaryTest {
  @Test
  void coreAndStrategyClassesReferToNoAndroidType() throws IOException {
    for (String pkg : new String[] {"core", "strategy"}) {
      Path dir = Paths.get("target/classes/dev/apkrelay/client", pkg);
      List<Path> classes;
      try (Stream<Path> files = Files.walk(dir)) {
        classes = files.filter(p -> p.toString().endsWith(".class")).collect(Collectors.toList());
      }
      assertTrue(classes.size() > 3, "classes found under " + dir);
      List<String> offenders = classes.stream().filter(BoundaryTest::mentionsAndroid)
          .map(Path::toString).collect(Collectors.toList());
      assertEquals(List.of(), offenders);
    }
  }

  private static boolean mentionsAndroid(Path classFile) {
    try {
      return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1).contains("android/");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
