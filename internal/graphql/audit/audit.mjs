// Runs graphql-http's GraphQL-over-HTTP server audits against the URL given
// as the first argument and exits non-zero when a MUST-level audit fails.
// SHOULD and MAY audits are reported but do not fail the run: where they
// differ from DataHub's transport (HTTP 200 for every parsable request with
// application/json), DataHub's behaviour wins. See audit_test.go.
import { serverAudits } from 'graphql-http';

const url = process.argv[2];
if (!url) {
  console.error('usage: node audit.mjs URL');
  process.exit(2);
}

const results = await Promise.all(serverAudits({ url, fetchFn: fetch }).map((a) => a.fn()));
let failed = 0;
for (const r of results) {
  const level = r.name.split(' ')[0];
  if (r.status === 'ok') {
    console.log(`ok    ${r.name}`);
    continue;
  }
  if (level === 'MUST') failed++;
  let detail = r.reason;
  if (r.response) {
    let body = '';
    try { body = await r.response.text(); } catch { /* already read */ }
    detail += ` (status ${r.response.status}, content-type ${r.response.headers.get('content-type')}${body ? `, body ${body.slice(0, 200)}` : ''})`;
  }
  console.log(`${level === 'MUST' ? 'FAIL ' : r.status.padEnd(5)} ${r.name}: ${detail}`);
}
console.log(`${results.length} audits, ${failed} MUST failures`);
process.exit(failed > 0 ? 1 : 0);
