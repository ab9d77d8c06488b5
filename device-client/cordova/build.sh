#!/usr/bin/env bash
# Compiles and tests the Cordova plugin's Java bridge (src/android) against cordova-android's
# framework sources, taken from its npm package at build time (`npm pack`, into target/; nothing
# of it is committed), android-all and the library's jar, as an app's Gradle build would compile
# it; then runs the bridge's JUnit 5 test (test/java) on the plain JVM with JUnit's console
# launcher (from Maven Central, into ~/.m2). Copies the library's AAR into libs/, where
# plugin.xml takes it from, so this directory can then be added with `cordova plugin add`.
# Needs ../android/target (run ../android/build.sh, which calls this script at its end).
# Usage: device-client/cordova/build.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=$(cd "$here/../android" && pwd)
m2=${M2_REPO:-$HOME/.m2/repository}
cordova_android=14.0.1
junit=1.14.4
android_all=$m2/org/robolectric/android-all/14-robolectric-10818077/android-all-14-robolectric-10818077.jar
launcher=$m2/org/junit/platform/junit-platform-console-standalone/$junit/junit-platform-console-standalone-$junit.jar
version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$lib/pom.xml" | head -n 1)
jar=$lib/target/apkrelay-android-$version.jar
out=$here/target

for f in "$jar" "$lib/target/apkrelay-android-$version.aar" "$android_all"; do
  [[ -f $f ]] || { echo "cordova: $f is missing: run device-client/android/build.sh first" >&2; exit 1; }
done
[[ -f $launcher ]] || mvn -B -ntp -q dependency:get -Dartifact="org.junit.platform:junit-platform-console-standalone:$junit"

framework=$out/cordova-android-$cordova_android/package/framework/src
if [[ ! -d $framework ]]; then
  mkdir -p "$out/cordova-android-$cordova_android"
  (cd "$out/cordova-android-$cordova_android" && npm pack --silent "cordova-android@$cordova_android" >/dev/null \
    && tar xzf "cordova-android-$cordova_android.tgz" package/framework/src)
fi

rm -rf "$out/classes" "$out/test-classes" && mkdir -p "$out/classes" "$out/test-classes"
# -sourcepath: javac compiles only the framework classes the bridge reaches. test/stubs stands in
# for the two androidx types those name (androidx is not on Maven Central's class path here).
javac --release 11 -nowarn -XDsuppressNotes -Xlint:-options -implicit:class -cp "$android_all:$jar" \
  -sourcepath "$framework:$here/test/stubs" -d "$out/classes" "$here"/src/android/*.java
echo "cordova bridge: compiled against cordova-android $cordova_android ($(find "$out/classes/org/apache/cordova" -name '*.class' | wc -l) framework classes)"
javac --release 17 -nowarn -cp "$out/classes:$android_all:$jar:$launcher" -d "$out/test-classes" \
  $(find "$here/test/java" -name '*.java')
status=0
java -jar "$launcher" execute --disable-banner --details=tree --disable-ansi-colors \
  -cp "$out/test-classes:$out/classes:$jar:$android_all" --select-package dev.apkrelay.cordova \
  >"$out/tests.txt" 2>&1 || status=$?
# JUnit's summary lines (the whole report: target/tests.txt), then any failure's details.
grep -a -E '^\[ +[0-9]+ tests (found|successful|failed) +\]' "$out/tests.txt" | sed 's/^/cordova bridge: /'
if ((status != 0)); then
  grep -a -A12 -E '✘|MethodSource' "$out/tests.txt" | head -80
  echo "cordova bridge tests failed (all of it: device-client/cordova/target/tests.txt)" >&2
  exit "$status"
fi

mkdir -p "$here/libs"
cp "$lib/target/apkrelay-android-$version.aar" "$here/libs/apkrelay-android.aar"
echo "cordova plugin ready: $here (libs/apkrelay-android.aar from apkrelay-android $version)"
