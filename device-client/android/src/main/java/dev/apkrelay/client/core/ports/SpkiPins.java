package dev.apkrelay.client.core.ports;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Trust for a self-hosted server whose certificate no platform CA signed (`npm start`'s
 * self-signed one, a private CA): the server is trusted when a certificate of its chain has one of
 * the pinned public keys, written as OkHttp's CertificatePinner writes them, {@code sha256/} and
 * the base64 SHA-256 of the SubjectPublicKeyInfo. Only those keys are trusted (the platform's CAs
 * are not consulted); the leaf must be within its validity dates, and the host name is still
 * checked by HttpsURLConnection against the certificate's names.
 */
public final class SpkiPins {
  private SpkiPins() {}

  /** Parses {@code "sha256/AAA…=, sha256/BBB…="}; IllegalArgumentException naming a bad one. */
  public static Set<String> parse(String text) {
    Set<String> pins = new LinkedHashSet<>();
    for (String part : text.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) continue;
      byte[] hash;
      try {
        hash = p.startsWith("sha256/") ? Base64.getDecoder().decode(p.substring(7)) : new byte[0];
      } catch (IllegalArgumentException e) {
        hash = new byte[0];
      }
      if (hash.length != 32) {
        throw new IllegalArgumentException("server pin \"" + p + "\" is not sha256/ and the base64 of 32 bytes");
      }
      pins.add(p);
    }
    if (pins.isEmpty()) throw new IllegalArgumentException("no server pin given");
    return pins;
  }

  /** The pin of a certificate's public key: {@code sha256/<base64 SHA-256 of its SPKI DER>}. */
  public static String pinOf(X509Certificate cert) throws GeneralSecurityException {
    byte[] spki = cert.getPublicKey().getEncoded();
    return "sha256/" + Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(spki));
  }

  /** TLS sockets that trust only servers presenting one of {@code pins}. */
  public static SSLSocketFactory socketFactory(Set<String> pins) throws GeneralSecurityException {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {new Pinned(pins)}, null);
    return context.getSocketFactory();
  }

  private static final class Pinned implements X509TrustManager {
    private final Set<String> pins;

    Pinned(Set<String> pins) {
      this.pins = pins;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      if (chain == null || chain.length == 0) throw new CertificateException("no server certificate");
      chain[0].checkValidity();
      List<String> seen = new ArrayList<>();
      for (X509Certificate c : chain) {
        String pin;
        try {
          pin = pinOf(c);
        } catch (GeneralSecurityException e) {
          throw new CertificateException(e);
        }
        if (pins.contains(pin)) return;
        seen.add(pin);
      }
      throw new CertificateException("the server's keys " + seen + " match none of the pinned " + pins);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      throw new CertificateException("not a server");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
