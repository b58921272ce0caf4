// Reads the typed settings from VS Code (parsing lives in config_values.ts).
import * as vscode from 'vscode';
import { DenpexConfig, parseConfig } from './config_values';

export function readConfig(): { config: DenpexConfig; problems: string[] } {
  const section = vscode.workspace.getConfiguration('denpex');
  return parseConfig((key) => section.get(key));
}
