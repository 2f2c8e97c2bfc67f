/** Text made safe for one cell of a Markdown table: a `|` would end the cell, a newline the row. */
export function markdownCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
