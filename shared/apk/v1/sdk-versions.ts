/** Android API levels the JAR verifier's rules refer to (apksig `AndroidSdkVersion`). */
export const SdkVersion = {
  GINGERBREAD: 9,
  JELLY_BEAN_MR2: 18,
  KITKAT: 19,
  N: 24,
  P: 28,
} as const;
