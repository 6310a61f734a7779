/**
 * Syntax highlighting of a report's PHP and Blade snippets (issue 31), loaded by the report page
 * only when a snippet opens (a dynamic import: none of this is in the initial bundle). highlight.js
 * (its core, PHP, XML and our Blade) through lowlight, which hands back a syntax tree instead of
 * HTML: the page renders tokens as text in elements with classes, never sets HTML, and needs no
 * style attribute the Content-Security-Policy would refuse (the colours are in styles.css).
 */
import php from 'highlight.js/lib/languages/php';
import xml from 'highlight.js/lib/languages/xml';
import type { ElementContent, Root } from 'hast';
import { createLowlight } from 'lowlight';
import { blade } from './blade.js';
import type { SnippetLanguage } from './report-view.js';

const lowlight = createLowlight({ php, xml, blade });

/** A run of text and the highlight.js classes that colour it (null: plain). */
export interface Token {
  text: string;
  className: string | null;
}

/**
 * `lines` highlighted together (a comment or string may span several) and cut back into lines, one
 * array of tokens for each line given, in order.
 */
export function highlightLines(lines: readonly string[], language: SnippetLanguage): Token[][] {
  const tree: Root = lowlight.highlight(language, lines.join('\n'));
  const out: Token[][] = [[]];
  const push = (text: string, className: string | null) => {
    text.split('\n').forEach((part, index) => {
      if (index > 0) out.push([]);
      if (part === '') return;
      const line = out[out.length - 1] as Token[];
      const last = line[line.length - 1];
      if (last !== undefined && last.className === className) last.text += part;
      else line.push({ text: part, className });
    });
  };
  const walk = (nodes: readonly ElementContent[], className: string | null) => {
    for (const node of nodes) {
      if (node.type === 'text') push(node.value, className);
      else if (node.type === 'element') walk(node.children, tokenClass(node.properties.className) ?? className);
    }
  };
  walk(tree.children as ElementContent[], null);
  // A trailing empty line of the snippet still counts as one.
  while (out.length < lines.length) out.push([]);
  return out;
}

/** highlight.js's classes of a span (`hljs-title function_`); a sub-language's wrapper (`language-php`) colours nothing. */
function tokenClass(value: unknown): string | null {
  const names = Array.isArray(value) ? value.map(String) : [];
  return names[0]?.startsWith('hljs-') ? names.join(' ') : null;
}
