import type { ApkIssue } from '../issues';

export interface V1Signer {
  /** DER, signer cert first, then its issuers as found in the signature block. */
  certificates: Buffer[];
  /** Lowercase hex SHA-256 of the signer cert DER. */
  sha256: string;
  /** Signer name, e.g. `CERT.RSA` (the signature block's name without `META-INF/`). */
  name: string;
  signatureFileName: string;
  signatureBlockFileName: string;
}

export interface V1Result {
  /**
   * Whether the APK carries a JAR signature at all: at least one signature block
   * (META-INF/*.RSA, *.DSA or *.EC), whether or not it verifies. A bare MANIFEST.MF (as in
   * plain JARs) does not count.
   */
  present: boolean;
  verified: boolean;
  /** Signers whose signatures cover the APK's entries (apksig `Result.signers`). */
  signers: V1Signer[];
  errors: ApkIssue[];
  warnings: ApkIssue[];
  /**
   * Scheme IDs that an `X-Android-APK-Signed` attribute says the APK was signed with, that the
   * platform range knows, but that were not found (stripped signatures). Checked only when
   * maxSdk >= 24, as Android does.
   */
  strippedSchemeIds: number[];
  /** Every scheme ID listed in `X-Android-APK-Signed` by a .SF file, sorted. */
  declaredSchemeIds: number[];
}

export interface V1Options {
  minSdk: number;
  maxSdk: number;
  /** Signature schemes found in the APK Signing Block (2, 3, 31...). */
  foundSchemeIds: ReadonlySet<number>;
}
