package dev.apkrelay.client.core.crypto;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Ed25519 signature verification (RFC 8032 section 5.1.7), written after the reference code of
 * RFC 8032 section 6 with BigInteger arithmetic in extended coordinates. Android's providers have
 * no Ed25519 before API 33, so the library carries this one and uses it on every API level.
 *
 * <p>Strict where RFC 8032 says to be: a signature's S must be below the group order L (no
 * malleable signatures), a point's y must be below p, and x = 0 with the sign bit set is refused.
 * The check is the cofactorless [S]B = R + [k]A, as OpenSSL (the server's signer, through Node)
 * checks it. Only public data is handled, so constant time is not needed.
 */
public final class Ed25519 {
  private Ed25519() {}

  private static final BigInteger TWO = BigInteger.valueOf(2);
  private static final BigInteger P = BigInteger.ONE.shiftLeft(255).subtract(BigInteger.valueOf(19));
  private static final BigInteger L =
      BigInteger.ONE.shiftLeft(252).add(new BigInteger("27742317777372353535851937790883648493"));
  private static final BigInteger D =
      BigInteger.valueOf(-121665).multiply(inv(BigInteger.valueOf(121666))).mod(P);
  private static final BigInteger D2 = D.shiftLeft(1).mod(P);
  private static final BigInteger SQRT_M1 =
      BigInteger.valueOf(2).modPow(P.subtract(BigInteger.ONE).shiftRight(2), P);
  private static final Point B;

  static {
    BigInteger y = BigInteger.valueOf(4).multiply(inv(BigInteger.valueOf(5))).mod(P);
    BigInteger x = recoverX(y, 0);
    B = new Point(x, y, BigInteger.ONE, x.multiply(y).mod(P));
  }

  /** A point in extended homogeneous coordinates (X:Y:Z:T), x = X/Z, y = Y/Z, xy = T/Z. */
  private static final class Point {
    final BigInteger x;
    final BigInteger y;
    final BigInteger z;
    final BigInteger t;

    Point(BigInteger x, BigInteger y, BigInteger z, BigInteger t) {
      this.x = x;
      this.y = y;
      this.z = z;
      this.t = t;
    }
  }

  private static final Point IDENTITY =
      new Point(BigInteger.ZERO, BigInteger.ONE, BigInteger.ONE, BigInteger.ZERO);

  /**
   * True when {@code signature} (64 bytes) is a valid Ed25519 signature of {@code message} by
   * {@code publicKey} (32 bytes, RFC 8032 encoding). Malformed input gives false, never throws.
   */
  public static boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
    if (publicKey == null || message == null || signature == null) return false;
    if (publicKey.length != 32 || signature.length != 64) return false;
    Point a = decompress(publicKey, 0);
    if (a == null) return false;
    Point r = decompress(signature, 0);
    if (r == null) return false;
    BigInteger s = littleEndian(signature, 32, 32);
    if (s.compareTo(L) >= 0) return false;
    MessageDigest sha512;
    try {
      sha512 = MessageDigest.getInstance("SHA-512");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-512 is missing from this platform", e);
    }
    sha512.update(signature, 0, 32);
    sha512.update(publicKey);
    sha512.update(message);
    BigInteger k = littleEndian(sha512.digest(), 0, 64).mod(L);
    Point sB = multiply(s, B);
    Point rkA = add(r, multiply(k, a));
    return equal(sB, rkA);
  }

  private static BigInteger inv(BigInteger v) {
    return v.modPow(P.subtract(TWO), P);
  }

  private static BigInteger littleEndian(byte[] bytes, int offset, int length) {
    byte[] be = new byte[length];
    for (int i = 0; i < length; i++) be[length - 1 - i] = bytes[offset + i];
    return new BigInteger(1, be);
  }

  /** RFC 8032 5.1.3; null when the encoding is not a point. */
  private static Point decompress(byte[] bytes, int offset) {
    BigInteger y = littleEndian(bytes, offset, 32);
    int sign = y.testBit(255) ? 1 : 0;
    y = y.clearBit(255);
    BigInteger x = recoverX(y, sign);
    if (x == null) return null;
    return new Point(x, y, BigInteger.ONE, x.multiply(y).mod(P));
  }

  private static BigInteger recoverX(BigInteger y, int sign) {
    if (y.compareTo(P) >= 0) return null;
    BigInteger yy = y.multiply(y);
    BigInteger x2 = yy.subtract(BigInteger.ONE).multiply(inv(D.multiply(yy).add(BigInteger.ONE))).mod(P);
    if (x2.signum() == 0) return sign == 1 ? null : BigInteger.ZERO;
    BigInteger x = x2.modPow(P.add(BigInteger.valueOf(3)).shiftRight(3), P);
    if (x.multiply(x).subtract(x2).mod(P).signum() != 0) x = x.multiply(SQRT_M1).mod(P);
    if (x.multiply(x).subtract(x2).mod(P).signum() != 0) return null;
    if ((x.testBit(0) ? 1 : 0) != sign) x = P.subtract(x);
    return x;
  }

  private static Point add(Point p, Point q) {
    BigInteger a = p.y.subtract(p.x).multiply(q.y.subtract(q.x)).mod(P);
    BigInteger b = p.y.add(p.x).multiply(q.y.add(q.x)).mod(P);
    BigInteger c = p.t.multiply(D2).multiply(q.t).mod(P);
    BigInteger d = p.z.shiftLeft(1).multiply(q.z).mod(P);
    BigInteger e = b.subtract(a);
    BigInteger f = d.subtract(c);
    BigInteger g = d.add(c);
    BigInteger h = b.add(a);
    return new Point(e.multiply(f).mod(P), g.multiply(h).mod(P), f.multiply(g).mod(P), e.multiply(h).mod(P));
  }

  private static Point multiply(BigInteger scalar, Point point) {
    Point q = IDENTITY;
    Point p = point;
    for (int i = 0; i < scalar.bitLength(); i++) {
      if (scalar.testBit(i)) q = add(q, p);
      p = add(p, p);
    }
    return q;
  }

  private static boolean equal(Point p, Point q) {
    return p.x.multiply(q.z).subtract(q.x.multiply(p.z)).mod(P).signum() == 0
        && p.y.multiply(q.z).subtract(q.y.multiply(p.z)).mod(P).signum() == 0;
  }
}
