import { readFileSync } from 'node:fs';
import secureJson from 'secure-json-parse';
import { validatorCompiler } from '/work/main/dist/http/validation.js';
import { ReportUpload } from '/work/main/dist/reports/upload.schemas.js';
import { normalizeResults } from '/work/main/dist/reports/normalize-upload.js';
import { summarizeResults } from '/work/main/dist/reports/summarize.js';
import { fingerprintResults } from '/work/main/dist/reports/changes.js';
import { encodeResults, decodeResults } from '/work/main/dist/reports/stored-results.js';
import { gzipSync } from 'node:zlib';
const file = process.argv[2];
const t = (label, f) => { const s = performance.now(); const r = f(); console.log(label, (performance.now() - s).toFixed(0), 'ms'); return r; };
for (let round = 0; round < 2; round++) {
const text = t('read', () => readFileSync(file, 'utf8'));
const body = t('parse', () => secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' }));
const validate = validatorCompiler({ schema: ReportUpload, httpPart: 'body' });
t('validate', () => validate(body));
const results = t('normalize', () => normalizeResults(body.results));
t('summarize', () => summarizeResults(results));
const issues = t('fingerprint', () => fingerprintResults(results));
const enc = t('encode', () => encodeResults(results));
console.log('results_br', enc.results_br.length);
const dec = t('decode', () => decodeResults(enc));
const detailText = t('stringify detail-ish', () => JSON.stringify({ data: { results: dec } }));
const gz = t('gzip6', () => gzipSync(detailText));
t('gzip1', () => gzipSync(detailText, { level: 1 }));
console.log('detail', detailText.length, 'gz', gz.length, 'issues', issues.length);
t('structuredClone issues', () => structuredClone(issues));
}
