import type { EmailKind } from '@basalt/contract';

/** The English templates every project has; `auth.templatesDir` overrides any part of them (templates.ts). */
const page = (body: string) =>
  `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a;max-width:32rem">${body}<p style="color:#666;font-size:0.9em">{{projectName}}</p></body></html>`;
const button = (label: string) => `<p><a href="{{link}}" style="display:inline-block;padding:0.6em 1.2em;background:#1f4f8a;color:#fff;text-decoration:none;border-radius:4px">${label}</a></p>`;
const code = `<p>Or type this code where you asked for the mail: <strong style="font-size:1.3em;letter-spacing:0.1em">{{code}}</strong> (valid {{expiresInMinutes}} minutes).</p>`;
const ignore = `<p>If you did not ask for this, ignore this mail.</p>`;
const textTail = `\n\nOr type this code where you asked for the mail: {{code}} (valid {{expiresInMinutes}} minutes).\n\nIf you did not ask for this, ignore this mail.\n\n{{projectName}}\n`;

export const BUILT_IN: Record<EmailKind, { subject: string; txt: string; html: string }> = {
  verify: {
    subject: 'Confirm your email address for {{projectName}}',
    txt: `Confirm that {{email}} is your address by opening this link and pressing the button:\n\n{{link}}${textTail}`,
    html: page(`<p>Confirm that {{email}} is your address:</p>${button('Confirm my address')}${code}${ignore}`),
  },
  recover: {
    subject: 'Reset your {{projectName}} password',
    txt: `Someone asked to reset the password of {{email}}. Choose a new one here:\n\n{{link}}${textTail}`,
    html: page(`<p>Someone asked to reset the password of {{email}}.</p>${button('Choose a new password')}${code}${ignore}`),
  },
  otp: {
    subject: 'Your {{projectName}} sign-in code: {{code}}',
    txt: `Sign in to {{projectName}} as {{email}} with this link:\n\n{{link}}${textTail}`,
    html: page(`<p>Sign in to {{projectName}} as {{email}}:</p>${button('Sign in')}${code}${ignore}`),
  },
  'email-change': {
    subject: 'Confirm your new email address for {{projectName}}',
    txt: `Confirm that {{newEmail}} should become the address of your {{projectName}} account (now {{email}}):\n\n{{link}}${textTail}`,
    html: page(`<p>Confirm that {{newEmail}} should become the address of your account (now {{email}}).</p>${button('Confirm the new address')}${code}${ignore}`),
  },
  'email-change-notice': {
    subject: 'The email address of your {{projectName}} account is changing',
    txt: `Someone signed in to your {{projectName}} account ({{email}}) asked to change its address to {{newEmail}}. It changes once the new address is confirmed.\n\nIf this was not you, reset your password now.\n\n{{projectName}}\n`,
    html: page(`<p>Someone signed in to your account ({{email}}) asked to change its address to {{newEmail}}. It changes once the new address is confirmed.</p><p>If this was not you, reset your password now.</p>`),
  },
  invite: {
    subject: 'You are invited to {{projectName}}',
    txt: `You are invited to {{projectName}} as {{email}}. Choose your password here:\n\n{{link}}${textTail}`,
    html: page(`<p>You are invited to {{projectName}} as {{email}}.</p>${button('Accept and choose a password')}${code}${ignore}`),
  },
  'email-taken': {
    subject: 'Someone tried to use your address on {{projectName}}',
    txt: `Someone signed in to another {{projectName}} account asked to change its address to {{email}}, which already has an account. Nothing was changed.\n\nIf you forgot your password, ask for a reset on the sign-in page.\n\n{{projectName}}\n`,
    html: page(`<p>Someone signed in to another account asked to change its address to {{email}}, which already has an account. Nothing was changed.</p><p>If you forgot your password, ask for a reset on the sign-in page.</p>`),
  },
  test: {
    subject: 'Test mail from {{projectName}}',
    txt: `This is a test mail from {{projectName}} to {{email}}. Mail sending works.\n\n{{projectName}}\n`,
    html: page(`<p>This is a test mail from {{projectName}} to {{email}}. Mail sending works.</p>`),
  },
};
