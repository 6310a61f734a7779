import type { HLJSApi, Language } from 'highlight.js';

/**
 * Laravel's Blade templates for highlight.js, which has no grammar of its own for them: HTML
 * (highlight.js's `xml`) with PHP inside `{{ }}`, `{!! !!}` and `@php … @endphp`, `{{-- --}}`
 * comments and `@directives`. Modelled on highlight.js's own `php-template`.
 */
export function blade(hljs: HLJSApi): Language {
  const php = (begin: RegExp, end: RegExp, scope: string) => ({ begin, end, subLanguage: 'php', beginScope: scope, endScope: scope });
  return {
    name: 'Blade',
    subLanguage: 'xml',
    contains: [
      hljs.COMMENT(/\{\{--/, /--\}\}/),
      php(/\{!!/, /!!\}/, 'template-tag'),
      php(/\{\{/, /\}\}/, 'template-tag'),
      // `@php(…)` is the one-line form, whose argument is left plain like any directive's.
      php(/@php\b(?!\s*\()/, /@endphp\b/, 'keyword'),
      // Not the `@` of an address (`ada@example.com`) nor an escaped `@@if`.
      { scope: 'keyword', match: /(?<![\w@])@[A-Za-z]\w*/ },
    ],
  };
}
