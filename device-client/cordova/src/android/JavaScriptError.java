package dev.apkrelay.cordova;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.json.JSONObject;

/**
 * A JavaScript error given to {@code sendAsyncException}, as a Throwable for the library: its
 * text is {@code <name>: <message>} and its frames are the JavaScript stack's ({@code at fn
 * (file:line:col)} lines), with no Java frame of the bridge.
 */
final class JavaScriptError extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private static final Pattern FRAME = Pattern.compile("^\\s*at (?:(.*?) \\()?(.*?):(\\d+):\\d+\\)?$");
  private final String name;

  private JavaScriptError(String name, String message) {
    super(message, null, false, true);
    this.name = name;
  }

  /** {@code {name, message, stack}} as www/apkrelay.js sends it. */
  static JavaScriptError of(JSONObject e) {
    if (e == null) throw new IllegalArgumentException("sendAsyncException needs an error");
    JavaScriptError error = new JavaScriptError(e.optString("name", "Error"), e.optString("message", ""));
    List<StackTraceElement> frames = new ArrayList<>();
    for (String line : e.optString("stack", "").split("\n")) {
      Matcher m = FRAME.matcher(line);
      if (m.matches()) {
        String fn = m.group(1) == null || m.group(1).isEmpty() ? "<anonymous>" : m.group(1);
        frames.add(new StackTraceElement("js", fn, m.group(2), Integer.parseInt(m.group(3))));
      }
    }
    error.setStackTrace(frames.toArray(new StackTraceElement[0]));
    return error;
  }

  @Override
  public String toString() {
    String message = getMessage();
    return message == null || message.isEmpty() ? name : name + ": " + message;
  }
}
