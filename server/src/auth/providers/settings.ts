import { ConfigError } from '../../configError.js';

/**
 * `auth.providers` of config.json (API.md, "Sign-in with identity providers"): any OpenID Connect issuer by discovery,
 * and presets that need only `clientId` and a secret for google, microsoft, gitlab and apple. Secrets come from the
 * environment (`clientSecretEnv`, apple's `privateKeyEnv`), never from the file. Checked once at start-up; a mistake
 * stops it with a message naming the key.
 */
export interface ProviderConfig {
  /** The name in the routes (`/auth/oauth/<name>`). */
  name: string;
  displayName: string;
  /** Where discovery starts; microsoft's holds the tenant. */
  issuer: string;
  clientId: string;
  /** null: a public client (PKCE alone) or apple, whose secret is minted from its key. */
  clientSecret: string | null;
  scopes: string[];
  /** Client ids of native apps whose id tokens `POST /auth/oauth/<name>/token` accepts besides `clientId`. */
  audiences: string[];
  preset: 'google' | 'microsoft' | 'gitlab' | 'apple' | null;
  apple?: { teamId: string; keyId: string; privateKey: string };
}

const PRESETS = {
  google: { displayName: 'Google', issuer: () => 'https://accounts.google.com', scopes: ['openid', 'email', 'profile'] },
  microsoft: { displayName: 'Microsoft', issuer: (tenant: string) => `https://login.microsoftonline.com/${tenant}/v2.0`, scopes: ['openid', 'email', 'profile'] },
  gitlab: { displayName: 'GitLab', issuer: () => 'https://gitlab.com', scopes: ['openid', 'email', 'profile'] },
  apple: { displayName: 'Apple', issuer: () => 'https://appleid.apple.com', scopes: ['openid', 'email', 'name'] },
} as const;
type PresetName = keyof typeof PRESETS;

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const COMMON_KEYS = ['issuer', 'clientId', 'clientSecretEnv', 'scopes', 'displayName', 'audiences'];
const PRESET_KEYS: Record<PresetName, string[]> = { google: [], microsoft: ['tenant'], gitlab: [], apple: ['teamId', 'keyId', 'privateKeyEnv'] };

function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`${where} must be a non-empty string`);
  return value.trim();
}

function list(value: unknown, where: string): string[] | null {
  if (value === undefined) return null;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === '' || /\s/.test(item.trim()))) {
    throw new ConfigError(`${where} must be a list of non-empty strings without spaces`);
  }
  return (value as string[]).map((item) => item.trim());
}

function fromEnv(env: NodeJS.ProcessEnv, variable: string, where: string): string {
  const value = env[variable];
  if (value === undefined || value.trim() === '') throw new ConfigError(`${where} names the environment variable ${variable}, which is not set`);
  return value;
}

/** An issuer URL: https, or http on this machine only (development and tests). */
function issuerUrl(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${where} must be a URL, got "${value}"`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new ConfigError(`${where} must be an https URL (http only on localhost)`);
  if (url.username || url.password || url.search || url.hash) throw new ConfigError(`${where} must be a plain issuer URL`);
  return value.replace(/\/+$/, '') === url.origin ? url.origin : value;
}

function parseOne(name: string, value: unknown, env: NodeJS.ProcessEnv, configPath: string): ProviderConfig {
  const where = `${configPath}: auth.providers.${name}`;
  if (!NAME.test(name)) throw new ConfigError(`${configPath}: auth.providers: "${name}" is not a provider name (a-z, 0-9, _ and -, starting with a letter, at most 32)`);
  if (name === 'exchange') throw new ConfigError(`${configPath}: auth.providers: "exchange" is taken by POST /auth/oauth/exchange: choose another name`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(`${where} must be an object`);
  const entry = value as Record<string, unknown>;
  const preset = (Object.hasOwn(PRESETS, name) ? name : null) as PresetName | null;
  const known = [...COMMON_KEYS, ...(preset ? PRESET_KEYS[preset] : [])];
  for (const key of Object.keys(entry)) {
    if (!known.includes(key)) throw new ConfigError(`${where}: unknown key "${key}" (known keys: ${known.join(', ')})`);
  }
  const clientId = text(entry.clientId, `${where}.clientId`);
  let issuer: string;
  if (entry.issuer !== undefined) issuer = issuerUrl(text(entry.issuer, `${where}.issuer`), `${where}.issuer`);
  else if (preset) issuer = PRESETS[preset].issuer(entry.tenant === undefined ? 'common' : text(entry.tenant, `${where}.tenant`));
  else throw new ConfigError(`${where} needs "issuer" (the OpenID Connect issuer URL): only google, microsoft, gitlab and apple have a preset`);
  const config: ProviderConfig = {
    name,
    displayName: entry.displayName === undefined ? (preset ? PRESETS[preset].displayName : name) : text(entry.displayName, `${where}.displayName`),
    issuer,
    clientId,
    clientSecret: entry.clientSecretEnv === undefined ? null : fromEnv(env, text(entry.clientSecretEnv, `${where}.clientSecretEnv`), `${where}.clientSecretEnv`),
    scopes: list(entry.scopes, `${where}.scopes`) ?? [...(preset ? PRESETS[preset].scopes : ['openid', 'email', 'profile'])],
    audiences: list(entry.audiences, `${where}.audiences`) ?? [],
    preset,
  };
  if (!config.scopes.includes('openid')) config.scopes.unshift('openid');
  if (preset === 'apple') {
    config.apple = {
      teamId: text(entry.teamId, `${where}.teamId`),
      keyId: text(entry.keyId, `${where}.keyId`),
      privateKey: fromEnv(env, text(entry.privateKeyEnv, `${where}.privateKeyEnv`), `${where}.privateKeyEnv`),
    };
  }
  return config;
}

export function parseProviders(value: unknown, env: NodeJS.ProcessEnv, configPath: string): ProviderConfig[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`${configPath}: "auth.providers" must be an object of providers by name`);
  return Object.entries(value).map(([name, entry]) => parseOne(name, entry, env, configPath));
}
