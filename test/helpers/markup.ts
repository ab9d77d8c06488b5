/**
 * Markup compared as text in unit tests of the web views: the templates are formatted by
 * Prettier, so runs of whitespace are one space and none is left before a tag's end.
 */
export const flat = (text: string): string =>
  text.replace(/\s+/g, ' ').replace(/ >/g, '>').replace(/ <\//g, '</');
