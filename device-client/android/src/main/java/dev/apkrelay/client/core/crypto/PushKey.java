package dev.apkrelay.client.core.crypto;

import java.util.Arrays;
import java.util.Base64;

/**
 * The pinned push-signing key: an Ed25519 public key as the server publishes it (SPKI DER in
 * base64, RFC 8410: the 12-byte prefix 302a300506032b6570032100, then the 32 key bytes).
 */
public final class PushKey {
  private static final byte[] SPKI_PREFIX = {
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00
  };
  private final byte[] raw;

  private PushKey(byte[] raw) {
    this.raw = raw;
  }

  /** Reads a base64 SPKI key; IllegalArgumentException when it is not an Ed25519 key. */
  public static PushKey fromSpkiBase64(String spkiBase64) {
    byte[] der;
    try {
      der = Base64.getDecoder().decode(spkiBase64.trim());
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("push key: not base64", e);
    }
    if (der.length != SPKI_PREFIX.length + 32
        || !Arrays.equals(Arrays.copyOf(der, SPKI_PREFIX.length), SPKI_PREFIX)) {
      throw new IllegalArgumentException("push key: not an Ed25519 SubjectPublicKeyInfo");
    }
    return new PushKey(Arrays.copyOfRange(der, SPKI_PREFIX.length, der.length));
  }

  public static PushKey fromRaw(byte[] raw32) {
    if (raw32 == null || raw32.length != 32) throw new IllegalArgumentException("push key: 32 bytes");
    return new PushKey(raw32.clone());
  }

  /** Verifies a base64 signature over {@code message}; false for any malformed input. */
  public boolean verify(byte[] message, String signatureBase64) {
    byte[] sig;
    try {
      sig = Base64.getDecoder().decode(signatureBase64);
    } catch (IllegalArgumentException | NullPointerException e) {
      return false;
    }
    return Ed25519.verify(raw, message, sig);
  }
}
