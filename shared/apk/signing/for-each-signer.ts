/** The signers of a v2/v3 scheme block, one by one (apksig `parseSigners`). */
import { issue } from '../issues';
import { ByteReader, MalformedBlockError } from './byte-reader';
import type { SchemeResult, SchemeSigner } from './scheme-result';

/**
 * Iterates the length-prefixed signers of a scheme block (apksig `parseSigners`). Stops after
 * the signer past `maxSigners` and returns maxSigners + 1: each signer costs a signature
 * verification, so a block of tens of thousands of copies of one signer would otherwise keep the
 * verifier busy for seconds (apksig parses them all, then rejects more than 10 for v2).
 */
export function forEachSigner(
  prefix: string,
  schemeBlock: Buffer,
  result: SchemeResult,
  newSigner: (index: number) => SchemeSigner,
  parse: (signer: ByteReader, info: SchemeSigner) => void,
  maxSigners: number,
): number {
  let signers: ByteReader;
  try {
    signers = new ByteReader(schemeBlock).lengthPrefixedReader();
  } catch (err) {
    if (!(err instanceof MalformedBlockError)) throw err;
    result.errors.push(issue(`${prefix}_MALFORMED_SIGNERS`, 'Malformed list of signers'));
    return 0;
  }
  if (!signers.hasRemaining()) {
    result.errors.push(issue(`${prefix}_NO_SIGNERS`, 'No signers'));
    return 0;
  }
  let count = 0;
  while (signers.hasRemaining()) {
    if (count === maxSigners) return count + 1;
    const info = newSigner(count);
    count++;
    result.signers.push(info);
    try {
      parse(signers.lengthPrefixedReader(), info);
    } catch (err) {
      if (!(err instanceof MalformedBlockError)) throw err;
      info.errors.push(
        issue(`${prefix}_MALFORMED_SIGNER`, `Malformed signer block: ${err.message}`),
      );
      return count;
    }
  }
  return count;
}
