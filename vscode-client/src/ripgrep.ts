// VS Code's own rg (the `@vscode/ripgrep` package every VS Code build carries for its
// search). The bundled server has no ripgrep wheel (a platform binary), so the
// extension passes this path to the server as the `rgPath` setting. Pure: the file
// check is passed in.

import * as path from 'node:path';

/** The rg under `appRoot` (vscode.env.appRoot), or undefined when this build has none. */
export function vscodeRipgrep(appRoot: string, platform: NodeJS.Platform, isExecutable: (p: string) => boolean): string | undefined {
  if (!appRoot) return undefined;
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  // node_modules: VS Code >= 1.80 and code-server; node_modules.asar.unpacked: older desktop builds.
  for (const dir of ['node_modules', 'node_modules.asar.unpacked']) {
    const candidate = path.join(appRoot, dir, '@vscode', 'ripgrep', 'bin', exe);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}
