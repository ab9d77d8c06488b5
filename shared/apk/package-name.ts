/**
 * Android's rule for an application's package name (the manifest's `package`), as documented for
 * the <manifest> element: at least two segments separated by dots, each starting with an ASCII
 * letter and made of ASCII letters, digits and underscores. The platform also caps a package name
 * at 223 characters (it names a directory on the device). Android's own parser is a little looser
 * (it lets empty segments through); the documented rule is the one kept here. Pure.
 *
 * Such a name is safe in a URL path segment, a header parameter and a file name as it is; that is
 * no reason to skip encoding it, as records stored before this rule may hold anything.
 */
export const MAX_PACKAGE_NAME_LENGTH = 223;

const PACKAGE_NAME = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+$/;

export function isAndroidPackageName(name: string): boolean {
  return name.length <= MAX_PACKAGE_NAME_LENGTH && PACKAGE_NAME.test(name);
}
