package dev.apkrelay.client.strategy;

final class Texts {
  private Texts() {}

  static String nonEmpty(String value, String what) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException(what + " must be a non-empty string");
    }
    return value;
  }
}
