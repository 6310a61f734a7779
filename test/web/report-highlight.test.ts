import { describe, expect, it } from 'vitest';
import { highlightLines, type Token } from '../../web/src/lib/highlight.js';

/** The tokens of a line as `class:text` (plain text without a class), to read a highlighted line at a glance. */
function show(line: Token[] | undefined): string[] {
  return (line ?? []).map((token) => (token.className === null ? token.text : `${token.className}:${token.text}`));
}

describe('highlighting a report’s snippets', () => {
  it('colours PHP and keeps one array of tokens per line, the text intact', () => {
    const lines = ['class Customer extends Model', '{', '    protected $guarded = [];', '', "    return 'a';"];
    const highlighted = highlightLines(lines, 'php');
    expect(highlighted).toHaveLength(lines.length);
    expect(highlighted.map((line) => line.map((token) => token.text).join(''))).toEqual(lines);
    expect(show(highlighted[0])).toContain('hljs-keyword:class');
    expect(show(highlighted[2])).toContain('hljs-variable:$guarded');
    expect(show(highlighted[4])).toContain("hljs-string:'a'");
  });

  it('cuts a comment that spans lines into one coloured run on each line', () => {
    const highlighted = highlightLines(['/**', ' * Why.', ' */', '$a = 1;'], 'php');
    expect(highlighted.slice(0, 3).map(show)).toEqual([['hljs-comment:/**'], ['hljs-comment: * Why.'], ['hljs-comment: */']]);
    expect(show(highlighted[3])).toContain('hljs-variable:$a');
  });

  it('colours Blade: HTML, PHP inside echoes and @php blocks, directives and comments', () => {
    const lines = [
      "@extends('layouts.app')",
      '{{-- a note --}}',
      '<div class="row">{!! $items[0]->description !!}</div>',
      "@php $total = collect($items)->sum('total'); @endphp",
      'Write to ada@example.com',
    ];
    const highlighted = highlightLines(lines, 'blade');
    expect(highlighted.map((line) => line.map((token) => token.text).join(''))).toEqual(lines);
    expect(show(highlighted[0])).toContain('hljs-keyword:@extends');
    expect(show(highlighted[1])).toEqual(['hljs-comment:{{-- a note --}}']);
    expect(show(highlighted[2])).toEqual(expect.arrayContaining(['hljs-name:div', 'hljs-template-tag:{!!', 'hljs-variable:$items']));
    expect(show(highlighted[3])).toEqual(expect.arrayContaining(['hljs-keyword:@php', 'hljs-variable:$total', 'hljs-keyword:@endphp']));
    expect(show(highlighted[4]).some((token) => token.startsWith('hljs-keyword'))).toBe(false);
  });

  it('treats markup in the source as text: nothing comes back as HTML', () => {
    const highlighted = highlightLines(['echo "<script>alert(1)</script>";'], 'php');
    expect(highlighted[0]?.map((token) => token.text).join('')).toBe('echo "<script>alert(1)</script>";');
  });
});
