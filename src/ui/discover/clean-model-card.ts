/**
 * A hub model card made fit for the app's markdown renderer: the YAML front matter (metadata the
 * hub shows as tags) and HTML comments go, and HTML tags are dropped with their text kept (cards
 * centre logos in `<div>`s and size images with `<img>`); scripts and styles go whole. The renderer only ever binds text, so
 * this is about reading well, not safety.
 */
export function cleanModelCard(text: string): string {
  const body = text.replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/, '');
  // Code (fenced blocks and inline spans) shows tags as written: clean only what lies between.
  return body
    .split(/(```[\s\S]*?```|`[^`\n]*`)/)
    .map((part, index) => (index % 2 === 1 ? part : withoutHtml(part)))
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function withoutHtml(text: string): string {
  return (
    text
      .replace(/<!--[\s\S]*?-->/g, '')
      // Scripts and styles are code, not reading: they go with their content.
      .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
      // An image by tag: keep its alt text, when it has one.
      .replace(/<img\b[^>]*?\balt\s*=\s*"([^"]*)"[^>]*>/gi, '$1')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/?(?:div|p|center|table|tr|h[1-6])\b[^>]*>/gi, '\n')
      .replace(/<\/?[a-z][a-z0-9-]*\b[^>]*>/gi, '')
      .replace(/&nbsp;/g, ' ')
  );
}
