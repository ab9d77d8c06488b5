/**
 * Mutations of the JAR-signature files inside an APK (META-INF/MANIFEST.MF, *.SF, *.RSA/.DSA/.EC)
 * and of its AndroidManifest.xml, written back into a consistent archive so the verifier reaches
 * the v1 parsers and the AXML reader with hostile content.
 */
import { mutateAxml } from './axml-mutators';
import { havoc } from './byte-mutators';
import { mutateDer } from './length-prefixed';
import type { Rng } from './random';
import { readModel, writeModel, type ModelEntry } from './zip-layout';

function mutateManifestText(rng: Rng, text: Buffer): Buffer {
  const lines = text.toString('latin1').split(/\r?\n/);
  const i = rng.int(Math.max(1, lines.length));
  switch (rng.int(9)) {
    case 0:
      lines.splice(i, 0, `X-Long: ${'a'.repeat(rng.pick([72, 1000, 70000]))}`);
      break;
    case 1:
      lines.splice(i, 0, ...Array<string>(rng.pick([10, 5000])).fill(' continued'));
      break;
    case 2:
      lines.splice(i, 0, ...Array<string>(rng.pick([100, 20000])).fill('Name: x\n'));
      break;
    case 3:
      lines[i] = (lines[i] ?? '').replace(':', '');
      break;
    case 4:
      lines[i] = (lines[i] ?? '').replace(
        /: .*/,
        `: ${rng.pick(['', '====', '!!', 'A'.repeat(4096)])}`,
      );
      break;
    case 5:
      lines.splice(i, 1);
      break;
    case 6:
      return Buffer.from(lines.join('\r'), 'latin1');
    case 7:
      lines.splice(i, 0, lines[i] ?? '', lines[i] ?? '');
      break;
    default:
      return havoc(rng, text);
  }
  return Buffer.from(lines.join('\r\n'), 'latin1');
}

function isSignatureBlock(name: string): boolean {
  return /^META-INF\/.*\.(RSA|DSA|EC)$/.test(name);
}

/** `apk` rewritten with its manifest or one JAR-signature file mutated; null when not an archive. */
export function mutateEntries(
  rng: Rng,
  apk: Buffer,
  otherManifest?: Buffer,
): { bytes: Buffer; how: string } | null {
  const model = readModel(apk);
  if (model === null) return null;
  const byName = (test: (n: string) => boolean): ModelEntry[] =>
    model.entries.filter((e) => test(e.name.toString('utf8')));
  const manifest = byName((n) => n === 'AndroidManifest.xml')[0];
  const jar = byName((n) => n.startsWith('META-INF/'));
  let how: string;
  if (manifest !== undefined && (jar.length === 0 || rng.chance(0.5))) {
    const m = mutateAxml(rng, manifest.data, otherManifest);
    manifest.data = m.bytes;
    delete manifest.raw;
    how = `manifest:${m.how}`;
  } else if (jar.length > 0) {
    const e = rng.pick(jar);
    const name = e.name.toString('utf8');
    delete e.raw;
    if (isSignatureBlock(name)) {
      e.data = rng.chance(0.8) ? mutateDer(rng, e.data) : havoc(rng, e.data);
      how = 'jar:signature-block';
    } else {
      e.data = mutateManifestText(rng, e.data);
      how = name.endsWith('.SF') ? 'jar:signature-file' : 'jar:manifest';
    }
  } else {
    return null;
  }
  return { bytes: writeModel(model), how };
}
