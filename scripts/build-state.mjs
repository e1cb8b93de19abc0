// Whether the build that `npm start` runs is missing or older than its sources (shared by start and typegen).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = path.join(root, 'server/dist/.build-stamp');
const SOURCES = ['contract/src', 'server/src', 'client/src', 'migrations', 'console/src', 'console/index.html', 'console/vite.config.ts'];

function newestSource(entry) {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return 0;
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const child of fs.readdirSync(full)) {
    if (child === 'dist' || child === 'node_modules') continue;
    newest = Math.max(newest, newestSource(path.join(entry, child)));
  }
  return newest;
}

export function buildIsCurrent() {
  if (!fs.existsSync(STAMP)) return false;
  const built = fs.statSync(STAMP).mtimeMs;
  return SOURCES.every((entry) => newestSource(entry) <= built);
}

/** Builds (npm run build) when the build is missing or stale; exits on failure. */
export function ensureBuilt() {
  if (buildIsCurrent()) return;
  console.error('basalt: building (the build is missing or older than the sources)...');
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    console.error('basalt: the build failed');
    process.exit(result.status ?? 1);
  }
}

/** Called at the end of `npm run build`. */
export function writeStamp() {
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, new Date().toISOString());
}

if (process.argv[2] === '--stamp') writeStamp();
