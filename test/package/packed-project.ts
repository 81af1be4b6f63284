/**
 * The packed package installed as a user installs it, shared by the TOOLGATE_PACK=1 tests
 * (packed-install.test.ts, new-user.test.ts): `npm pack` of the dist/ the suite runs on, and a
 * fresh ESM project that installs the tarball offline. The project's lock file is derived from
 * ours (the tarball plus what our package.json's runtime dependencies need, whose tarballs
 * `npm ci` left in npm's cache), so nothing but loopback is reached; optional packages (a
 * framework, the schema generator) are added the same way, from our lock's entries. What is
 * installed follows package.json (the tarball's), not the lock's `dev` marks: a package moved
 * from the dependencies to the optional peers is left out even before the lock is written again.
 */
import { createHash } from 'node:crypto';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers.js';

const run = promisify(execFile);
export const packEnabled = process.env.TOOLGATE_PACK === '1';

export interface LockEntry {
  dev?: boolean; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }>; engines?: unknown; version?: string; [key: string]: unknown;
}
export interface Lock { packages: Record<string, LockEntry> }

/** The lock keys of `names` and everything they need (dependencies, optional ones, required peers), resolved as Node does over the lock's folders. */
function lockClosure(lock: Lock, names: string[]): string[] {
  const resolve = (from: string, name: string): string | undefined => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const key = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
      if (lock.packages[key] !== undefined) return key;
      if (dir === '') return undefined;
    }
  };
  const seen = new Set<string>();
  const stack = names.map((name) => `node_modules/${name}`);
  while (stack.length > 0) {
    const key = stack.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    const entry = lock.packages[key]!;
    // Peers too (ts-node's @types/node), unless optional: npm install adds a missing one.
    const peers = Object.keys(entry.peerDependencies ?? {}).filter((name) => entry.peerDependenciesMeta?.[name]?.optional !== true);
    for (const name of [...Object.keys({ ...entry.dependencies, ...entry.optionalDependencies }), ...peers]) {
      const found = resolve(key, name);
      if (found !== undefined) stack.push(found);
    }
  }
  return [...seen];
}

/**
 * A TypeScript project in `folder` that imports the package's main entries (`toolgate`,
 * `toolgate/tool`, `toolgate/internal`) and the MCP bridge's options from the `toolgate` its
 * `node_modules` holds, checked with `skipLibCheck: false` (the TypeScript and `@types/node` of
 * this repository); `source` replaces the file's text. `tsc`'s exit code and what it printed.
 */
export async function compileAgainstPackage(folder: string, source?: string, compilerOptions: Record<string, unknown> = {}): Promise<{ code: number; out: string }> {
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true,
      types: ['node'], typeRoots: [path.join(REPO_ROOT, 'node_modules/@types')], ...compilerOptions,
    },
    files: ['index.ts'],
  }));
  fs.writeFileSync(path.join(folder, 'index.ts'), source ?? [
    "import * as toolgate from 'toolgate';",
    "import * as tool from 'toolgate/tool';",
    "import * as internal from 'toolgate/internal';",
    "import type { McpBridgeOptions, McpClientTransport, OAuthAuthorizer } from 'toolgate';",
    'const transport: McpClientTransport = { start: async () => undefined, send: async () => undefined, close: async () => undefined };',
    'const authorizer: OAuthAuthorizer = async () => undefined;',
    'export const options: McpBridgeOptions = { transportFor: () => transport, oauthAuthorizer: authorizer };',
    'export const used = [toolgate.ToolSystem, tool, internal];',
    '',
  ].join('\n'));
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', folder], { cwd: folder, maxBuffer: 16 << 20 });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** Sizes in KiB (`du -sk`) of `paths`, in order. */
export async function du(paths: string[]): Promise<number[]> {
  const { stdout } = await run('du', ['-sk', ...paths]);
  return stdout.trim().split('\n').map((line) => Number(line.split('\t')[0]));
}

/** The fenced blocks of one language in README.md (or another Markdown file of the repository), in order. */
export function readmeBlocks(lang: string, file = 'README.md'): string[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
  return [...text.matchAll(/```(\w+)\n([\s\S]*?)```/g)].filter((m) => m[1] === lang).map((m) => m[2]!);
}

/** A command's result, whatever its exit code. */
export function exec(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A fresh ESM project (`project`, inside the temp folder `tmp`) with the packed tarball installed. */
export interface PackedProject {
  tmp: string;
  project: string;
  tarball: string;
  /** Our package-lock.json. */
  lock: Lock;
  /** `npm install --offline` of packages our lock holds (at our versions), as dependencies or devDependencies of the project; throws when it fails. */
  add(packages: { dependencies?: string[]; devDependencies?: string[] }): Promise<void>;
  /** Removes the temp folder. */
  cleanup(): void;
}

/** Packs the repository and installs the tarball alone (`npm ci --offline`) into a fresh project; throws when the install fails. */
export async function installPacked(prefix: string): Promise<PackedProject> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    const project = path.join(tmp, 'project');
    fs.mkdirSync(project);
    // --ignore-scripts: pack the dist/ the suite runs on; the prepare script would rebuild it
    // under the tests' feet.
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', tmp], { cwd: REPO_ROOT });
    const tarball = path.join(tmp, stdout.trim().split('\n').at(-1)!);
    const lock = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as Lock;
    // What the tarball declares (its package.json is ours).
    const ours = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as LockEntry;
    const spec = `file:../${path.basename(tarball)}`;
    // First toolgate alone, as `npm install <tarball>` installs it: no optional package.
    const manifest = { name: 'my-agent', version: '1.0.0', type: 'module', private: true, dependencies: { toolgate: spec } as Record<string, string>, devDependencies: {} as Record<string, string> };
    const packages: Record<string, LockEntry> = {
      'node_modules/toolgate': {
        version: ours.version,
        resolved: spec,
        integrity: `sha512-${createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`,
        dependencies: ours.dependencies,
        peerDependencies: ours.peerDependencies,
        peerDependenciesMeta: ours.peerDependenciesMeta,
        engines: ours.engines,
        bin: { toolgate: 'bin/toolgate.js' },
      },
    };
    for (const key of lockClosure(lock, Object.keys(ours.dependencies ?? {}))) packages[key] = lock.packages[key]!;
    /** The user's package.json and a lock file of `packages` (what `npm ci --offline` installs). */
    const writeProject = (): void => {
      const root = { name: manifest.name, version: manifest.version, dependencies: manifest.dependencies, devDependencies: manifest.devDependencies };
      fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify(manifest, null, 2));
      fs.writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify({ name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages: { '': root, ...packages } }, null, 2));
    };
    writeProject();
    const install = await exec('npm', ['ci', '--offline', '--no-audit', '--no-fund'], project);
    if (install.code !== 0) throw new Error(`npm ci of the tarball failed:\n${install.stderr}`);
    const add = async ({ dependencies = [], devDependencies = [] }: { dependencies?: string[]; devDependencies?: string[] }): Promise<void> => {
      for (const key of lockClosure(lock, [...dependencies, ...devDependencies])) packages[key] ??= lock.packages[key]!;
      const versions = (names: string[]) => Object.fromEntries(names.map((name) => [name, ours.devDependencies![name]!]));
      manifest.dependencies = { ...manifest.dependencies, ...versions(dependencies) };
      manifest.devDependencies = { ...manifest.devDependencies, ...versions(devDependencies) };
      writeProject();
      const result = await exec('npm', ['install', '--offline', '--no-audit', '--no-fund'], project);
      if (result.code !== 0) throw new Error(`npm install of ${[...dependencies, ...devDependencies].join(' ')} failed:\n${result.stderr}`);
    };
    return { tmp, project, tarball, lock, add, cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }) };
  } catch (error) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}
