package dev.apkrelay.client.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The checks of {@code Client.start}'s arguments, with device-client/core/start-params.ts's error
 * text: every missing or empty parameter is named in one message.
 */
public final class StartParams {
  private StartParams() {}

  /** Thrown by {@code Client.start} for missing or empty parameters. */
  public static final class StartParamsException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    public final List<String> missing;

    public StartParamsException(List<String> missing) {
      super("Client.start: missing or empty parameters: " + String.join(", ", missing));
      this.missing = missing;
    }
  }

  /**
   * Checks name/value pairs: a null value, an empty string, or (for an Integer) 0 — the "no
   * resource" id of Android — is missing. Throws one {@link StartParamsException} naming them all.
   */
  public static void require(Object... namesAndValues) {
    List<String> missing = new ArrayList<>();
    for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
      Object v = namesAndValues[i + 1];
      boolean absent = v == null
          || (v instanceof String && ((String) v).trim().isEmpty())
          || (v instanceof Integer && (Integer) v == 0);
      if (absent) missing.add((String) namesAndValues[i]);
    }
    if (!missing.isEmpty()) throw new StartParamsException(missing);
  }

  /** addMetadata's and addExceptionMetadata's key rule (spec 2: the key must not be null). */
  public static String checkKey(String key) {
    if (key == null || key.isEmpty()) throw new IllegalArgumentException("metadata key must not be null or empty");
    return key;
  }
}
