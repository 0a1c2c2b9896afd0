/** A LIKE pattern matching `text` anywhere: `%`, `_` and `\` in the text are literal characters. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
