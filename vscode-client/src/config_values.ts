// Typed settings, parsed and validated without the vscode module (unit-tested).
export interface DenpexConfig {
  serverPath: string; // empty: the binary inside the extension
  rules: string[];
  autoDiagnose: boolean;
  logLevel: string; // the server's log level: trace, debug, info, warn, error or off
  probe: string; // a probe file (`denpex probe --output FILE`) scripts are checked against; empty: none
}

export type ConfigReader = (key: string) => unknown;

export function parseConfig(get: ConfigReader): { config: DenpexConfig; problems: string[] } {
  const problems: string[] = [];
  const str = (key: string, fallback: string): string => {
    const v = get(key);
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string') { problems.push(`denpex.${key} must be a string`); return fallback; }
    return v;
  };
  const rulesValue = get('rules');
  let rules: string[] = [];
  if (Array.isArray(rulesValue) && rulesValue.every((r) => typeof r === 'string')) rules = rulesValue as string[];
  else if (rulesValue !== undefined && rulesValue !== null) problems.push('denpex.rules must be a list of folders');
  const levels = ['trace', 'debug', 'info', 'warn', 'error', 'off'];
  let logLevel = str('logLevel', 'info');
  if (!levels.includes(logLevel)) {
    problems.push(`denpex.logLevel must be one of ${levels.join(', ')}`);
    logLevel = 'info';
  }
  const auto = get('autoDiagnose');
  if (auto !== undefined && typeof auto !== 'boolean') problems.push('denpex.autoDiagnose must be true or false');
  return {
    config: {
      serverPath: str('server.path', '').trim(),
      rules,
      autoDiagnose: typeof auto === 'boolean' ? auto : true,
      logLevel,
      probe: str('probe', '').trim(),
    },
    problems,
  };
}

/** What the server reads as didChangeConfiguration settings. */
export function serverSettings(config: DenpexConfig): { rules: string[]; autoDiagnose: boolean; logLevel: string; probe: string } {
  return { rules: config.rules, autoDiagnose: config.autoDiagnose, logLevel: config.logLevel, probe: config.probe };
}

/**
 * What the server reads as initializationOptions: the settings, and whether the user trusts the
 * workspace (VS Code's workspace trust). Only then does the server load the workspace's
 * `.denpex/rules` and the `denpex.rules` folders: rules are code. The server takes the trust flag
 * from here only, never from a settings change, which a workspace can write.
 */
export function initializationOptions(
  config: DenpexConfig,
  trusted: boolean,
): { rules: string[]; autoDiagnose: boolean; logLevel: string; probe: string; trustedWorkspace: boolean } {
  return { ...serverSettings(config), trustedWorkspace: trusted };
}

/** The bundled binary for this platform, inside the extension folder. */
export function bundledServerPath(extensionPath: string, platform: string): string {
  const exe = platform === 'win32' ? 'denpex.exe' : 'denpex';
  return `${extensionPath}/server/${exe}`;
}
