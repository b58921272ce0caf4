// The HTML of the report panel, built from a diagnosis report (no vscode import; unit-tested).
// The page posts messages back: {type: 'reveal', line}, {type: 'apply', finding, edit},
// {type: 'copy', text}.
import type { Finding, Report } from './protocol';

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function ranksText(ranks: number[]): string {
  if (!ranks.length) return '';
  const out: string[] = [];
  for (let i = 0; i < ranks.length; i++) {
    let j = i;
    while (j + 1 < ranks.length && ranks[j + 1] === ranks[j] + 1) j++;
    out.push(j > i ? `${ranks[i]}-${ranks[j]}` : `${ranks[i]}`);
    i = j;
  }
  return out.join(', ');
}

function findingHtml(f: Finding, index: number): string {
  const evidence = f.evidence
    .slice()
    .sort((a, b) => a.line - b.line)
    .map((e) => `<li><a href="#" data-line="${e.line - 1}" class="reveal">line ${e.line}</a> <code>${escapeHtml(e.text)}</code></li>`)
    .join('');
  const observed = f.observed.map((o) => `<li>${escapeHtml(o)}</li>`).join('');
  const edits = f.edits
    .map((e, k) =>
      e.applicable
        ? `<li>${escapeHtml(e.title)} <button class="apply" data-finding="${index}" data-edit="${k}">Apply</button></li>`
        : `<li class="muted">${escapeHtml(e.title)}: ${escapeHtml(e.reason ?? '')}</li>`)
    .join('');
  const role = f.role === 'root' ? 'Root cause' : f.role === 'collateral' ? 'Collateral' : 'Symptom';
  const ranks = f.ranks.length ? ` · rank${f.ranks.length > 1 ? 's' : ''} ${ranksText(f.ranks)}` : '';
  const verify = f.verify
    ? `<h3>Verify</h3><pre>${escapeHtml(f.verify)}</pre><button class="copy" data-text="${escapeHtml(f.verify)}">Copy</button>`
    : '';
  return `<section class="finding ${f.role}">
<h2>${escapeHtml(f.title)}</h2>
<p class="meta"><code>${escapeHtml(f.rule)}</code> · ${role}${ranks}${f.step !== null ? ` · step ${f.step}` : ''}</p>
<p>${escapeHtml(f.summary)}</p>
${observed ? `<h3>Seen in this log</h3><ul>${observed}</ul>` : ''}
<h3>Evidence</h3><ul>${evidence}</ul>
${f.root_cause ? `<h3>Root cause</h3><p>${escapeHtml(f.root_cause)}</p>` : ''}
${f.fix ? `<h3>Fix</h3><pre>${escapeHtml(f.fix)}</pre>` : ''}
${edits ? `<ul class="edits">${edits}</ul>` : ''}
${verify}
</section>`;
}

export function reportHtml(report: Report, documentName: string, nonce: string, cspSource: string): string {
  const roots = report.findings.filter((f) => f.role === 'root');
  const verdict = roots.length
    ? `${escapeHtml(roots[0].title)}${roots[0].ranks.length ? ` (rank ${ranksText(roots[0].ranks)} first)` : ''}`
    : report.findings.length ? escapeHtml(report.findings[0].title) : 'No known failure found';
  const body = report.findings.map(findingHtml).join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';">
<title>denpex report</title>
<style>
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1em; }
.verdict { font-size: 1.3em; font-weight: bold; }
.finding { border-left: 3px solid var(--vscode-editorError-foreground); padding-left: 1em; margin: 1em 0; }
.finding.collateral, .finding.symptom { border-color: var(--vscode-editorInfo-foreground); }
.muted, .meta { opacity: 0.75; }
pre { white-space: pre-wrap; background: var(--vscode-textCodeBlock-background); padding: 0.5em; }
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 2px 8px; cursor: pointer; }
</style></head>
<body>
<p class="verdict" id="verdict">${verdict}</p>
<p class="muted">${escapeHtml(documentName)} · ${report.lines} lines · ${report.findings.length} finding${report.findings.length === 1 ? '' : 's'}</p>
${body}
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
document.querySelectorAll('.reveal').forEach((a) => a.addEventListener('click', (e) => { e.preventDefault(); vscode.postMessage({ type: 'reveal', line: Number(a.dataset.line) }); }));
document.querySelectorAll('.apply').forEach((b) => b.addEventListener('click', () => vscode.postMessage({ type: 'apply', finding: Number(b.dataset.finding), edit: Number(b.dataset.edit) })));
document.querySelectorAll('.copy').forEach((b) => b.addEventListener('click', () => vscode.postMessage({ type: 'copy', text: b.dataset.text })));
</script>
</body></html>`;
}
