#!/usr/bin/env bash
# Builds the demo app that embeds apkrelay's Android library, in two versions (versionCode 1 and 2)
# signed with one key, without Gradle: aapt (manifest), javac, D8, zipalign, apksigner (Debian
# packages; installed when missing, as root), with R8 over the app and the library as in a release. Needs the library's jar and, in ~/.m2, android-all
# and r8: run ../build.sh first (it calls this script at its end).
# Output: target/demo/apkrelay-demo-<versionCode>.apk, `aapt dump badging` of each, and
# `apksigner verify`'s verdict. The signing key is a throwaway made per build (target/demo/).
# Usage: device-client/android/demo/build.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=$(cd "$here/.." && pwd)
m2=${M2_REPO:-$HOME/.m2/repository}
android_all=$m2/org/robolectric/android-all/14-robolectric-10818077/android-all-14-robolectric-10818077.jar
r8=$(ls "$m2"/com/android/tools/r8/8.5.35/r8-8.5.35.jar)
version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$lib/pom.xml" | head -n 1)
jar=$lib/target/apkrelay-android-$version.jar
out=$lib/target/demo

missing=()
for pair in aapt:aapt zipalign:zipalign apksigner:apksigner; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair##*:}")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "missing Debian packages: ${missing[*]} (run: sudo apt-get install -y ${missing[*]})" >&2
    exit 1
  fi
fi
for f in "$jar" "$android_all" "$r8"; do
  [[ -f $f ]] || { echo "demo: $f is missing: run device-client/android/build.sh first" >&2; exit 1; }
done

rm -rf "$out" && mkdir -p "$out/classes"
# The library's manifest entries, as Gradle's merger would add them (${applicationId} filled in).
python3 - "$here/AndroidManifest.xml" "$lib/src/main/aar/AndroidManifest.xml" "$out/AndroidManifest.in.xml" <<'PY'
import re, sys
app, libm, dest = (open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3])
perms = "\n    ".join(re.findall(r"<uses-permission [^>]*/>", libm))
inner = re.search(r"<application>(.*)</application>", libm, re.S).group(1)
inner = re.sub(r"<!--.*?-->", "", inner, flags=re.S).strip()
app = app.replace("<!-- @LIBRARY_PERMISSIONS@ -->", perms).replace("<!-- @LIBRARY_COMPONENTS@ -->", inner)
open(dest, "w").write(app.replace("${applicationId}", "dev.apkrelay.demo"))
PY

javac --release 11 -nowarn -cp "$android_all:$jar" -d "$out/classes" $(find "$here/src" -name '*.java')
# A release build as a host app's would run it: R8 shrinks the app with the library, reading the
# app's keep rules from its manifest (aapt -G, as Gradle does) and the library's consumer rules
# (the AAR's proguard.txt). R8 stops on any class the AAR references but does not ship (a missing
# -dontwarn), so this line is the proof that a host app with minification can build a release.
sed -e "s/@VERSION_CODE@/1/" -e "s/@VERSION_NAME@/1.1/" "$out/AndroidManifest.in.xml" > "$out/AndroidManifest.xml"
aapt package -f -M "$out/AndroidManifest.xml" -I "$android_all" -G "$out/aapt-rules.txt"
# android-all holds the framework without java.*: the JDK stands in for Android's core library.
jdk=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
java -cp "$r8" com.android.tools.r8.R8 --release --min-api 26 --lib "$android_all" --lib "$jdk" \
  --pg-conf "$out/aapt-rules.txt" --pg-conf "$lib/src/main/aar/proguard.txt" \
  --pg-map-output "$out/mapping.txt" --output "$out" $(find "$out/classes" -name '*.class') "$jar"
echo "r8: demo app shrunk with the library's consumer rules ($(wc -c < "$out/classes.dex") bytes of classes.dex)"

keystore=$out/demo-key.p12
keytool -genkeypair -keystore "$keystore" -storetype PKCS12 -storepass apkrelay-demo -keypass apkrelay-demo \
  -alias demo -keyalg RSA -keysize 2048 -validity 3650 -dname "CN=apkrelay demo" >/dev/null 2>&1

for code in 1 2; do
  sed -e "s/@VERSION_CODE@/$code/" -e "s/@VERSION_NAME@/1.$code/" "$out/AndroidManifest.in.xml" \
    > "$out/AndroidManifest.xml"
  unsigned=$out/unsigned-$code.apk
  aapt package -f -M "$out/AndroidManifest.xml" -I "$android_all" -F "$unsigned"
  (cd "$out" && aapt add "$unsigned" classes.dex >/dev/null)
  zipalign -f -p 4 "$unsigned" "$out/aligned-$code.apk"
  apk=$out/apkrelay-demo-$code.apk
  apksigner sign --ks "$keystore" --ks-pass pass:apkrelay-demo --min-sdk-version 26 --out "$apk" "$out/aligned-$code.apk"
  rm -f "$unsigned" "$out/aligned-$code.apk" "$apk.idsig"
  echo "== $(basename "$apk")"
  aapt dump badging "$apk" | grep -E "^(package|sdkVersion|targetSdkVersion|uses-permission|uses-library[a-z-]*|application-label):"
  aapt dump xmltree "$apk" AndroidManifest.xml | grep -A3 -E "E: (provider|receiver)" \
    | grep -E "E: (provider|receiver)|A: android:(name|authorities)" | sed 's/^ */  /'
  apksigner verify --min-sdk-version 26 "$apk" && echo "apksigner verify: $(basename "$apk") OK"
done
