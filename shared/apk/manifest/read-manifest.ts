/**
 * Extracts what the service needs from a binary AndroidManifest.xml, with apksig's semantics.
 * Attributes are matched by resource ID (as Android does), except `package`, matched by name.
 * minSdkVersion, targetSdkVersion and targetSandboxVersion follow AOSP apksig
 * `apk/ApkUtils.java` (`getMinSdkVersionFromBinaryAndroidManifest`, codename handling,
 * `getTargetSdkVersionFromBinaryAndroidManifest`, `getTargetSandboxVersionFromBinaryAndroidManifest`).
 */
import { ApkFormatError, ApkIssueCode } from '../issues';
import { startElements, ValueType, type XmlAttribute, type XmlStartElement } from './binary-xml';

export const AttrId = {
  label: 0x01010001,
  debuggable: 0x0101000f,
  minSdkVersion: 0x0101020c,
  versionCode: 0x0101021b,
  versionName: 0x0101021c,
  targetSdkVersion: 0x01010270,
  testOnly: 0x01010272,
  targetSandboxVersion: 0x0101054c,
  versionCodeMajor: 0x01010576,
} as const;

export interface ManifestInfo {
  package: string | null;
  /** versionCodeMajor << 32 | versionCode (unsigned), as PackageInfo.getLongVersionCode. */
  versionCode: number | null;
  versionName: string | null;
  /** Effective minimum SDK (largest uses-sdk minSdkVersion, default 1). */
  minSdk: number;
  /** targetSdkVersion, or minSdk when absent or not an integer. */
  targetSdk: number;
  targetSandboxVersion: number;
  /** True also when the value is a resource reference (it cannot be proven false). */
  testOnly: boolean;
  debuggable: boolean;
  /** Application label when it is a literal string. */
  label: string | null;
}

/** Platform codename first letters and their API levels (apksig `CodenamesLazyInitializer`). */
const CODENAMES: ReadonlyArray<readonly [string, number]> = [
  ['C', 2],
  ['D', 3],
  ['E', 4],
  ['F', 7],
  ['G', 8],
  ['H', 10],
  ['I', 13],
  ['J', 15],
  ['K', 18],
  ['L', 20],
  ['M', 22],
  ['N', 23],
  ['O', 25],
];

export function minSdkForCodename(codename: string): number {
  const first = codename.charAt(0);
  if (first >= 'A' && first <= 'Z') {
    let newestOlder: readonly [string, number] | undefined;
    for (const entry of CODENAMES) {
      if (entry[0] === first) return entry[1];
      if (entry[0] < first) newestOlder = entry;
    }
    if (newestOlder === undefined) return 1;
    return newestOlder[1] + (first.charCodeAt(0) - newestOlder[0].charCodeAt(0));
  }
  throw new ApkFormatError(
    ApkIssueCode.MANIFEST_UNKNOWN_CODENAME,
    `Unsupported codename in AndroidManifest.xml's minSdkVersion: "${codename}"`,
  );
}

const isInt = (a: XmlAttribute): boolean =>
  a.valueType === ValueType.INT_DEC || a.valueType === ValueType.INT_HEX;
const byId = (e: XmlStartElement, id: number): XmlAttribute | undefined =>
  e.attributes.find((a) => a.resourceId === id);
const signed = (data: number): number => data | 0;

function minSdkOf(usesSdk: XmlStartElement): number {
  const attr = byId(usesSdk, AttrId.minSdkVersion);
  if (attr === undefined) return 1;
  if (isInt(attr)) return signed(attr.data);
  if (attr.valueType === ValueType.STRING) return minSdkForCodename(attr.stringValue());
  throw new ApkFormatError(
    ApkIssueCode.MANIFEST_MALFORMED,
    `unsupported value type ${attr.valueType} in minSdkVersion; only integers are supported`,
  );
}

function flag(attr: XmlAttribute | undefined): boolean {
  if (attr === undefined) return false;
  if (attr.valueType === ValueType.INT_BOOLEAN || isInt(attr)) return attr.data !== 0;
  if (attr.valueType === ValueType.STRING) return attr.stringValue() === 'true';
  return true;
}

function text(attr: XmlAttribute | undefined): string | null {
  if (attr === undefined) return null;
  if (attr.valueType === ValueType.STRING) return attr.stringValue();
  if (isInt(attr)) return String(signed(attr.data));
  return null;
}

export function readManifest(xml: Buffer): ManifestInfo {
  let minSdk = 1;
  let target: { value: number } | null | undefined; // undefined: not seen; null: not an int
  let sandbox: number | undefined;
  let manifest: XmlStartElement | undefined;
  let application: XmlStartElement | undefined;
  for (const e of startElements(xml)) {
    if (e.name === 'uses-sdk') {
      if (e.depth === 2 && e.namespace === '') minSdk = Math.max(minSdk, minSdkOf(e));
      const t = byId(e, AttrId.targetSdkVersion);
      if (target === undefined && t !== undefined)
        target = isInt(t) ? { value: signed(t.data) } : null;
    } else if (e.name === 'manifest') {
      if (e.depth === 1 && manifest === undefined) manifest = e;
      const s = byId(e, AttrId.targetSandboxVersion);
      if (sandbox === undefined && s !== undefined) sandbox = isInt(s) ? signed(s.data) : 1;
    } else if (e.name === 'application' && e.depth === 2 && application === undefined) {
      application = e;
    }
  }
  const code = manifest && byId(manifest, AttrId.versionCode);
  const major = manifest && byId(manifest, AttrId.versionCodeMajor);
  let versionCode: number | null = null;
  if (code !== undefined && isInt(code)) {
    versionCode = code.data + (major !== undefined && isInt(major) ? major.data * 2 ** 32 : 0);
  }
  const pkg = manifest?.attributes.find((a) => a.name === 'package' && a.namespace === '');
  return {
    package: pkg?.valueType === ValueType.STRING ? pkg.stringValue() : null,
    versionCode,
    versionName: text(manifest && byId(manifest, AttrId.versionName)),
    minSdk,
    targetSdk: target ? target.value : minSdk,
    targetSandboxVersion: sandbox ?? 1,
    testOnly: flag(application && byId(application, AttrId.testOnly)),
    debuggable: flag(application && byId(application, AttrId.debuggable)),
    label: application ? readLabel(application) : null,
  };
}

function readLabel(application: XmlStartElement): string | null {
  const attr = byId(application, AttrId.label);
  return attr?.valueType === ValueType.STRING ? attr.stringValue() : null;
}
