import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkReport, Report } from '../../src/protocol';
import { escapeHtml, reportHtml } from '../../src/report_html';

const report: Report = {
  version: 1, tool: { name: 'denpex', version: '0.1.0' }, sources: ['train.log'], lines: 17,
  findings: [{
    rule: 'adamw-eps-fp16-underflow', title: 'AdamW epsilon underflow in FP16', severity: 'error', category: 'optimizer',
    tags: [], role: 'root', confidence: 1, ranks: [2, 3, 4, 7], count: 1, step: 2,
    evidence: [{ source: 'train.log', line: 17, start_byte: 0, end_byte: 5, signal: 'loss_nan', text: 'loss <nan>', rank: null, timestamp: null }],
    timestamps: { first: null, last: null }, captures: {}, observed: ['loss became nan at step 2'], exception: null,
    user_frame: null, summary: 'eps rounds to 0', root_cause: 'rc', fix: 'eps=1e-5', verify: 'python train.py',
    related: [], url: '', edits: [
      { title: 'Set eps=1e-5 in torch.optim.AdamW(...) (train.py:40)', file: 'train.py', line: 40, applicable: true, already_safe: false, changes: [] },
      { title: 'Set adam_epsilon', file: 'hf.py', line: 3, applicable: false, already_safe: true, reason: 'already safe', changes: [] },
    ],
  }],
};

test('the report shows the verdict, ranks, evidence links, the fix and the verify command', () => {
  const html = reportHtml(report, 'train.log', 'n0nce', 'vscode-resource:');
  assert.match(html, /AdamW epsilon underflow in FP16 \(rank 2-4, 7 first\)/);
  assert.match(html, /data-line="16" class="reveal">line 17/);
  assert.match(html, /loss &lt;nan&gt;/);
  assert.match(html, /<button class="apply" data-finding="0" data-edit="0">Apply<\/button>/);
  assert.match(html, /Set adam_epsilon: already safe/);
  assert.match(html, /<button class="copy" data-text="python train.py">Copy<\/button>/);
  assert.match(html, /script-src 'nonce-n0nce'/);
});

test('escaping and report checks', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  assert.throws(() => checkReport({ version: 2, findings: [] }), /schema version 2/);
  assert.throws(() => checkReport(null), /no report/);
  assert.equal(checkReport(report), report);
});
