import type { Role } from '@basalt/contract';

/** Who is calling, as the credentials middleware established it. */
export type Caller = { kind: 'anon' } | { kind: 'user'; id: string; role: Role; sessionId: string };

export const ANON: Caller = Object.freeze({ kind: 'anon' });

export function isOwner(caller: Caller): boolean {
  return caller.kind === 'user' && caller.role === 'owner';
}
