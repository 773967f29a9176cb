// The texts of the messages identity sends. Kept apart from the flow so the
// wording can change without touching the logic, and so tests can find the
// link and the key by a stable pattern.
export interface Message {
  subject: string;
  text: string;
}

export function confirmationMessage(link: string, ttlHours: number): Message {
  return {
    subject: 'Confirm your Orca signup',
    text: [
      'Someone (hopefully you) asked for an Orca account for this address.',
      '',
      'Open this link to confirm it; your API key will then be sent to you in a second message:',
      '',
      `  ${link}`,
      '',
      `The link works once and expires in ${ttlHours} hours. If you did not ask for an account, ignore this message.`,
    ].join('\n'),
  };
}

export function welcomeMessage(apiKey: string, publicUrl: string): Message {
  return {
    subject: 'Welcome to Orca: your API key',
    text: [
      'Your Orca account is ready. This is your API key:',
      '',
      `  ${apiKey}`,
      '',
      'It carries full authority over your account: keep it on a server, never in a browser.',
      'Send it as the X-API-Key header (or Authorization: Bearer) on every call, for example:',
      '',
      `  curl -H 'X-API-Key: <your key>' ${publicUrl}/api/v1/account`,
      '',
      `Exchange it for a 30-minute bearer token with POST ${publicUrl}/api/token {"api_key": "<your key>"},`,
      `and replace it at any time with POST ${publicUrl}/api/keys/rotate (the old key stops working at once).`,
      '',
      'Orca keeps only a hash of this key and cannot show it again: keep it safe, and rotate it if you lose it.',
    ].join('\n'),
  };
}

export function alreadyRegisteredMessage(publicUrl: string): Message {
  return {
    subject: 'Your Orca signup',
    text: [
      'Someone asked for an Orca account for this address, but it already has one, so nothing was changed.',
      '',
      `If you still have your API key you can replace it with POST ${publicUrl}/api/keys/rotate.`,
    ].join('\n'),
  };
}

export function loginCodeMessage(code: string, link: string, ttlMinutes: number): Message {
  return {
    subject: 'Your Orca sign-in code',
    text: [
      'Someone (hopefully you) asked to sign in to Orca with this address. Your code:',
      '',
      `  ${code}`,
      '',
      'Or open this link and press the button on its page:',
      '',
      `  ${link}`,
      '',
      `The code and the link work once and expire in ${ttlMinutes} minutes. If you did not ask to sign in, ignore this message.`,
    ].join('\n'),
  };
}

export function loginUnknownMessage(publicUrl: string): Message {
  return {
    subject: 'Your Orca sign-in',
    text: [
      'Someone asked to sign in to Orca with this address, but it has no account, so no code was issued.',
      '',
      `To get an account, sign up with POST ${publicUrl}/api/signup.`,
    ].join('\n'),
  };
}
