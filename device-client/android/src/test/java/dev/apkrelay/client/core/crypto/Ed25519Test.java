package dev.apkrelay.client.core.crypto;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/**
 * RFC 8032 section 7.1 test vectors (public key, message, signature), copied by hand from the RFC:
 * TEST 1, TEST 2, TEST 3 and TEST SHA(abc).
 */
class Ed25519Test {
  static byte[] hex(String h) {
    byte[] out = new byte[h.length() / 2];
    for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    return out;
  }

  static final String[][] RFC8032 = {
    {"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
    {"3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
      "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
    {"fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
      "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
        + "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
    {"ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
      "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
      "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b589"
        + "09351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"},
  };

  @Test
  void acceptsTheRfc8032Vectors() {
    for (String[] v : RFC8032) {
      assertTrue(Ed25519.verify(hex(v[0]), hex(v[1]), hex(v[2])), v[0]);
    }
  }

  @Test
  void refusesAnyChangedBitOfKeyMessageOrSignature() {
    String[] v = RFC8032[2];
    byte[] sig = hex(v[2]);
    for (int i : new int[] {0, 31, 32, 63}) {
      byte[] bad = sig.clone();
      bad[i] ^= 1;
      assertFalse(Ed25519.verify(hex(v[0]), hex(v[1]), bad), "signature byte " + i);
    }
    assertFalse(Ed25519.verify(hex(v[0]), hex("af83"), sig));
    assertFalse(Ed25519.verify(hex(v[0]), hex("af8200"), sig));
    assertFalse(Ed25519.verify(hex(RFC8032[1][0]), hex(v[1]), sig));
  }

  @Test
  void refusesMalleableSAndMalformedInput() {
    // TEST 1's signature with S + L (RFC 8032 5.1.7 step 1: S must be < L).
    byte[] sig = hex(RFC8032[0][2]);
    BigInteger l = BigInteger.ONE.shiftLeft(252).add(new BigInteger("27742317777372353535851937790883648493"));
    byte[] sLe = new byte[32];
    System.arraycopy(sig, 32, sLe, 0, 32);
    BigInteger s = new BigInteger(1, reverse(sLe)).add(l);
    byte[] sPlusL = reverse(toFixed(s, 32));
    byte[] malleable = sig.clone();
    System.arraycopy(sPlusL, 0, malleable, 32, 32);
    assertFalse(Ed25519.verify(hex(RFC8032[0][0]), new byte[0], malleable));
    assertFalse(Ed25519.verify(new byte[31], new byte[0], sig));
    assertFalse(Ed25519.verify(hex(RFC8032[0][0]), new byte[0], new byte[63]));
    assertFalse(Ed25519.verify(null, new byte[0], sig));
    // y = p (not canonical) as the public key: 0xed, 0xff x30, 0x7f.
    byte[] yIsP = hex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
    assertFalse(Ed25519.verify(yIsP, new byte[0], sig));
  }

  private static byte[] reverse(byte[] b) {
    byte[] r = new byte[b.length];
    for (int i = 0; i < b.length; i++) r[i] = b[b.length - 1 - i];
    return r;
  }

  private static byte[] toFixed(BigInteger v, int n) {
    byte[] raw = v.toByteArray();
    byte[] out = new byte[n];
    int copy = Math.min(raw.length, n);
    System.arraycopy(raw, raw.length - copy, out, n - copy, copy);
    return out;
  }
}
