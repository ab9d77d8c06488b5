#!/usr/bin/env python3
"""The bundled Android deflater's vectors against zlib 1.2.13 where the JDK cannot be the oracle.

The JDK's Deflater sets only strategies 0-2 at memLevel 8 and windowBits 15; the Android library's
RawDeflaterStream (device-client/android/.../core/deflate, issue 37) also takes the rle and fixed
strategies, memLevel 1-9 and windowBits 9-15. Python's zlib is the oracle for those: this script
regenerates deterministic inputs from a seed (the same 31-bit LCG as the Java test's TestInputs),
deflates each with zlib.compressobj(level, DEFLATED, -windowBits, memLevel, strategy) and writes
the SHA-256 of each output to device-client/android/src/test/resources/deflate-vectors.txt, which
RawDeflaterVectorsTest replays. Levels 1-9 only: zlib's level 0 depends on each call's input and
output room, and Python's calls are not one-shot (the Java tests pin level 0 against the JDK).
With --pako DIR (pako 2.1.0's package directory; default: node_modules/pako when installed) each
vector also says whether pako's deflateRaw gives the same bytes ("=") or not ("x"), "-" when not
checked. Run from the repository's root: python3 ops/protocol/deflate-vectors.py [--pako DIR]
Refuses to run unless Python's zlib is 1.2.13.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zlib

OUT = "device-client/android/src/test/resources/deflate-vectors.txt"
WORDS = ["the ", "apk ", "update ", "device ", "fleet ", "delta ", "patch ", "android ", "zlib ",
         "deflate ", "window ", "match ", "\n", "class ", "void ", "return ", "int ", "0x1f ", "{ ",
         "} "]


class Lcg:
    def __init__(self, seed):
        self.x = seed & 0x7FFFFFFF

    def next(self):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return self.x >> 16


def fill(kind, g, out, start, end):
    i = start
    if kind == "zeros":
        return
    if kind == "random":
        for i in range(start, end):
            out[i] = g.next() & 0xFF
    elif kind == "skewed":
        for i in range(start, end):
            out[i] = g.next() % 200
    elif kind == "text":
        while i < end:
            for c in WORDS[g.next() % len(WORDS)].encode("ascii"):
                if i >= end:
                    break
                out[i] = c
                i += 1
    elif kind == "runs":
        while i < end:
            b = g.next() & 0xFF
            n = 1 + g.next() % 300
            while n > 0 and i < end:
                out[i] = b
                i += 1
                n -= 1
    elif kind == "mixed":
        kinds = ["text", "runs", "random", "zeros"]
        k = 0
        while i < end:
            fill(kinds[k % 4], g, out, i, min(end, i + 65536))
            i += 65536
            k += 1
    else:
        raise ValueError(kind)


def make(kind, seed, size):
    out = bytearray(size)
    fill(kind, Lcg(seed), out, 0, size)
    return bytes(out)


def settings():
    """(input, level, strategy, memLevel, windowBits): every memLevel with the smallest and the
    largest window on a small text, a few spread pairs on a larger mixed input, every window on
    it at three levels, and a skewed input (where fixed trees lose to stored) at memLevel 8/9."""
    small, mixed, skewed = ("text", 13, 20000), ("mixed", 11, 150000), ("skewed", 12, 40000)
    for mem in range(1, 10):
        for wbits in (9, 15):
            for strategy in range(5):
                for level in range(1, 10):
                    yield small, level, strategy, mem, wbits
    for mem, wbits in ((8, 15), (9, 15), (1, 15), (9, 9), (5, 12)):
        for strategy in range(5):
            for level in range(1, 10):
                yield mixed, level, strategy, mem, wbits
    for wbits in range(9, 16):
        for mem in (1, 8, 9):
            for strategy in (0, 3, 4):
                for level in (1, 6, 9):
                    yield mixed, level, strategy, mem, wbits
    for mem in (8, 9):
        for strategy in range(5):
            for level in range(1, 10):
                yield skewed, level, strategy, mem, 15


def zlib_raw(data, level, strategy, mem, wbits):
    c = zlib.compressobj(level, zlib.DEFLATED, -wbits, mem, strategy)
    return c.compress(data) + c.flush()


PAKO_JS = r"""
const pako = require(process.argv[1]);
const fs = require('fs');
const crypto = require('crypto');
const jobs = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = jobs.map((j) => {
  const data = fs.readFileSync(j.file);
  const z = pako.deflateRaw(data, { level: j.level, strategy: j.strategy, memLevel: j.mem,
    windowBits: j.wbits });
  return crypto.createHash('sha256').update(z).digest('hex');
});
process.stdout.write(JSON.stringify(out));
"""


def pako_hashes(pako_dir, rows, inputs):
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for key, data in inputs.items():
            files[key] = os.path.join(tmp, "%s-%d-%d" % key)
            with open(files[key], "wb") as f:
                f.write(data)
        jobs = [{"file": files[r[0]], "level": r[1], "strategy": r[2], "mem": r[3], "wbits": r[4]}
                for r in rows]
        res = subprocess.run(["node", "-e", PAKO_JS, os.path.abspath(pako_dir)],
                             input=json.dumps(jobs).encode(), capture_output=True, check=True)
        return json.loads(res.stdout)


def main():
    if zlib.ZLIB_RUNTIME_VERSION != "1.2.13":
        sys.exit("Python's zlib is %s, not 1.2.13" % zlib.ZLIB_RUNTIME_VERSION)
    pako_dir = "node_modules/pako"
    if "--pako" in sys.argv:
        pako_dir = sys.argv[sys.argv.index("--pako") + 1]
    rows = list(settings())
    inputs = {r[0]: make(*r[0]) for r in rows}
    hashes = [hashlib.sha256(zlib_raw(inputs[r[0]], *r[1:])).hexdigest() for r in rows]
    have_pako = os.path.exists(os.path.join(pako_dir, "package.json"))
    pako = pako_hashes(pako_dir, rows, inputs) if have_pako else ["-"] * len(rows)
    lines = ["# kind seed size level strategy memLevel windowBits sha256(zlib 1.2.13) pako",
             "# written by ops/protocol/deflate-vectors.py; pako: = same bytes, x different,"
             " - not checked"]
    differ = 0
    for r, h, p in zip(rows, hashes, pako):
        mark = "-" if p == "-" else ("=" if p == h else "x")
        differ += mark == "x"
        lines.append("%s %d %d %d %d %d %d %s %s" % (r[0] + r[1:] + (h, mark)))
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d vectors in %s; pako: %s" % (
        len(rows), OUT, "%d differ" % differ if have_pako else "not checked"))


if __name__ == "__main__":
    main()
