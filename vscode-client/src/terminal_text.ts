// Terminal output as log text (no vscode import; unit-tested).

/** Removes what a terminal adds to program output: ANSI escapes, OSC sequences (VS Code's shell
 *  integration marks among them), carriage-return redraws and trailing spaces. */
export function cleanTerminalText(raw: string): string {
  const noOsc = raw.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '');
  const noCsi = noOsc.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '').replace(/\x1b[@-Z\\-_]/g, '');
  return noCsi
    .split('\n')
    .map((line) => {
      const l = line.endsWith('\r') ? line.slice(0, -1) : line;
      const parts = l.split('\r').filter((p) => p.trim() !== '');
      return (parts.length ? parts[parts.length - 1] : '').replace(/\s+$/, '');
    })
    .join('\n');
}

/** Collects the output of terminal commands (shell integration) and remembers each terminal's
 *  last finished one. Keyed by any object (a vscode.Terminal in the extension). */
export class CommandOutputs<K> {
  private running = new Map<K, { command: string; chunks: string[] }>();
  private finished = new Map<K, { command: string; output: string; exitCode: number | undefined }>();
  private static readonly maxBytes = 8 * 1024 * 1024;

  start(key: K, command: string): void { this.running.set(key, { command, chunks: [] }); }

  append(key: K, data: string): void {
    const r = this.running.get(key);
    if (!r) return;
    r.chunks.push(data);
    let size = r.chunks.reduce((n, c) => n + c.length, 0);
    while (size > CommandOutputs.maxBytes && r.chunks.length > 1) size -= r.chunks.shift()!.length; // keep the end
  }

  end(key: K, exitCode: number | undefined): void {
    const r = this.running.get(key);
    if (!r) return;
    this.running.delete(key);
    this.finished.set(key, { command: r.command, output: cleanTerminalText(r.chunks.join('')), exitCode });
  }

  last(key: K): { command: string; output: string; exitCode: number | undefined } | undefined { return this.finished.get(key); }

  forget(key: K): void { this.running.delete(key); this.finished.delete(key); }
}
