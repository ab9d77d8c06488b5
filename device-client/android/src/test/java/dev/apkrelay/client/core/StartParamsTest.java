package dev.apkrelay.client.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class StartParamsTest {
  @Test
  void namesEveryMissingParameterInTheTypeScriptClientsText() {
    StartParams.StartParamsException e = assertThrows(StartParams.StartParamsException.class,
        () -> StartParams.require("context", new Object(), "launcherIconResId", 0, "apiKey", " ", "deviceId", null, "pushUrl", "https://p"));
    assertEquals("Client.start: missing or empty parameters: launcherIconResId, apiKey, deviceId", e.getMessage());
    assertEquals(Arrays.asList("launcherIconResId", "apiKey", "deviceId"), e.missing);
    StartParams.require("apiKey", "k", "launcherIconResId", 0x7f0d0000);
  }

  @Test
  void metadataKeysMustNotBeNullOrEmpty() {
    assertThrows(IllegalArgumentException.class, () -> StartParams.checkKey(null));
    assertThrows(IllegalArgumentException.class, () -> StartParams.checkKey(""));
    assertEquals("k", StartParams.checkKey("k"));
  }
}
