package dev.apkrelay.client.core.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ChainingUncaughtHandlerTest {
  Thread.UncaughtExceptionHandler saved;
  final List<String> calls = new ArrayList<>();

  @BeforeEach
  void save() {
    saved = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> calls.add("previous " + e.getMessage()));
  }

  @AfterEach
  void restore() {
    Thread.setDefaultUncaughtExceptionHandler(saved);
  }

  @Test
  void reportsThenChainsToThePreviousHandler() {
    ChainingUncaughtHandler h = ChainingUncaughtHandler.install((t, e) -> calls.add("report " + e.getMessage()));
    assertSame(h, Thread.getDefaultUncaughtExceptionHandler());
    assertSame(h, ChainingUncaughtHandler.install((t, e) -> calls.add("second")), "installed once, never chained to itself");
    h.uncaughtException(Thread.currentThread(), new IllegalStateException("boom"));
    assertEquals(List.of("report boom", "previous boom"), calls);
  }

  @Test
  void aFailingReportOrADisabledHandlerStillChains() {
    ChainingUncaughtHandler h = ChainingUncaughtHandler.install((t, e) -> {
      throw new RuntimeException("disk full");
    });
    h.uncaughtException(Thread.currentThread(), new IllegalStateException("a"));
    h.setEnabled(false);
    h.uncaughtException(Thread.currentThread(), new IllegalStateException("b"));
    assertEquals(List.of("previous a", "previous b"), calls);
  }

  @Test
  void anExceptionRaisedWhileReportingIsNotReportedAgain() {
    ChainingUncaughtHandler[] self = new ChainingUncaughtHandler[1];
    self[0] = ChainingUncaughtHandler.install((t, e) -> {
      calls.add("report " + e.getMessage());
      self[0].uncaughtException(t, new IllegalStateException("inner"));
    });
    self[0].uncaughtException(Thread.currentThread(), new IllegalStateException("outer"));
    assertEquals(List.of("report outer", "previous inner", "previous outer"), calls);
  }
}
