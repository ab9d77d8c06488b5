#!/usr/bin/env bash
# Builds and tests apkrelay's Android library (device-client/android): installs what it needs when
# missing (Debian packages, as root), then `mvn verify`: compile at Java 11 against android-all,
# Animal Sniffer at API 26, the JUnit 5 and Robolectric suites, the versioned jar, D8 to classes.dex
# (dexdump reads it back) and the AAR; then demo/build.sh builds the demo APK in two versions and
# runs `apksigner verify` on both, and ../cordova/build.sh compiles and tests the Cordova plugin's
# Java bridge. Prints the Surefire summary; the Maven log is kept in target/.
# The JUnit suites include StackTest, the core against a real apkrelay stack started from the
# checkout's dist/ (`node dist/ops/dev/stack.js`): here it is required (it fails, not skips, when
# Node.js or dist/ is missing), so run `npm ci` or `npm run build` first, as .ci/run does.
# Usage: device-client/android/build.sh   (CI calls it from .ci/run)
set -euo pipefail
cd "$(dirname "$0")"

# command : Debian package
wanted=("java:openjdk-17-jdk-headless" "javac:openjdk-17-jdk-headless" "mvn:maven" "dexdump:dexdump")
missing=()
for pair in "${wanted[@]}"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair##*:}")
done
if ((${#missing[@]})); then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  if [[ $(id -u) -eq 0 ]]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  elif [[ ${missing[*]} == dexdump ]]; then
    echo "dexdump is not installed (apt-get install dexdump): classes.dex will not be inspected" >&2
  else
    echo "missing Debian packages: ${missing[*]} (run: sudo apt-get install -y ${missing[*]})" >&2
    exit 1
  fi
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
started=$(date +%s)
status=0
mvn -B -ntp -Dstyle.color=never -Dapkrelay.stackTest=required clean verify >"$log" 2>&1 || status=$?
mkdir -p target && cp "$log" target/build.log
# Per-class and total test lines, Animal Sniffer and D8/dexdump lines, and Maven's verdict.
grep -a -E '(Tests run:|animal-sniffer|dexdump:|classes\.dex|BUILD (SUCCESS|FAILURE))' "$log" || true
if ((status != 0)); then
  echo "---- last 60 lines of the Maven log (all of it: device-client/android/target/build.log)"
  tail -n 60 "$log"
  exit "$status"
fi
ls target/apkrelay-android-*.jar target/apkrelay-android-*.aar target/dex/classes.dex
# The AAR stays at most 150 KB (issue 32): a library a till carries must stay small.
aar_bytes=$(wc -c < "$(ls target/apkrelay-android-*.aar)")
echo "aar: $aar_bytes bytes (limit 153600)"
if ((aar_bytes > 153600)); then echo "the AAR is above 150 KB" >&2; exit 1; fi
bash demo/build.sh
bash ../cordova/build.sh
echo "android library built and tested in $(( $(date +%s) - started )) s"
