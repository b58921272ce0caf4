// The custom protocol between this extension and `denpex lsp`: the workspace/executeCommand
// commands and their arguments and results. Mirrors lsp/handlers/execute_command.cpp and the JSON
// report documented in docs/json-output.md (schema version 1). No vscode import: unit-tested.

export const Commands = {
  /** Diagnose `{text}` (anywhere), `{uri, range?}` (a document, a selection, or a file on disk) or
   *  `{folder}` (per-rank logs); returns a Report. Runs off the server's main thread, reports
   *  progress on a workDoneToken, and can be cancelled. */
  diagnose: 'denpex.diagnose',
  /** A rule's full entry as Markdown; argument: the rule id. */
  explain: 'denpex.explain',
  /** The loaded rules: RuleSummary[]. */
  rules: 'denpex.rules',
} as const;

export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

export type DiagnoseArgs = { text: string; name?: string } | { uri: string; range?: Range } | { folder: string };

export interface Evidence {
  source: string;
  line: number; // 1-based
  start_byte: number;
  end_byte: number;
  signal: string;
  text: string;
  rank: number | null;
  timestamp: string | null;
}

export interface EditChange { start: { line: number; column: number }; end: { line: number; column: number }; new_text: string }

export interface Edit {
  title: string;
  file: string;
  line: number;
  applicable: boolean;
  already_safe: boolean;
  reason?: string;
  changes: EditChange[];
  diff?: string;
}

export interface Finding {
  rule: string;
  title: string;
  severity: 'error' | 'warning' | 'info';
  category: string;
  tags: string[];
  role: 'root' | 'symptom' | 'collateral';
  confidence: number;
  ranks: number[];
  count: number;
  step: number | null;
  evidence: Evidence[];
  timestamps: { first: string | null; last: string | null };
  captures: Record<string, string>;
  observed: string[];
  exception: { type: string; message: string; template: string | null } | null;
  user_frame: { file: string; line: number; function: string } | null;
  summary: string;
  root_cause: string;
  fix: string;
  verify: string;
  related: string[];
  url: string;
  edits: Edit[];
}

export interface Report {
  version: number;
  tool: { name: string; version: string };
  sources: string[];
  lines: number;
  findings: Finding[];
}

export interface RuleSummary { id: string; title: string; category: string }

/** Checks the shape of a report from the server; throws with what is wrong. */
export function checkReport(value: unknown): Report {
  const r = value as Report;
  if (!r || typeof r !== 'object') throw new Error('denpex: the server returned no report');
  if (r.version !== 1) throw new Error(`denpex: report schema version ${String(r.version)} is not supported (expected 1)`);
  if (!Array.isArray(r.findings)) throw new Error('denpex: the report has no findings list');
  return r;
}
