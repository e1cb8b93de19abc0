import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../src/db/embedded.js';
import { stopProcess } from '../../../test-support/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PRISM = path.join(root, 'node_modules/.bin/prism');

export interface PrismProxy {
  url: string;
  /** What Prism printed (its log names every request and every violation). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Stoplight Prism as a validating proxy in front of `upstream`: with `--errors`, a request that does not match the
 * document is refused (422) and a response that does not match it becomes a 500 with an `sl-violations` header.
 */
export async function startPrismProxy(document: object, upstream: string): Promise<PrismProxy> {
  const folder = mkdtempSync(path.join(tmpdir(), 'basalt-prism-'));
  const file = path.join(folder, 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const port = await findFreePort();
  const child: ChildProcess = spawn(PRISM, ['proxy', file, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start within 60 s:\n${output}`)), 60_000);
    const check = setInterval(() => {
      if (output.includes('Prism is listening')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`prism exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    async stop() {
      await stopProcess(child);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
