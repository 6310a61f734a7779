import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

/**
 * E10.5: the JSON Web Token a GitHub App signs to act as itself, as GitHub's "Generating a JSON Web
 * Token for a GitHub App" describes it: RS256 with the app's private key, `iss` the app's id, `iat`
 * 60 seconds in the past (for clock drift) and `exp` at most ten minutes later. It is good only for
 * the app's own endpoints; `github-app.ts` trades it for an installation's token.
 */

/** GitHub refuses an `exp` more than ten minutes after `iat`; nine leaves room for drift. */
const LIFETIME_SECONDS = 9 * 60;
const DRIFT_SECONDS = 60;

const keys = new Map<string, KeyObject>();

/** The key parsed once per process: a PEM in PKCS#1 (as GitHub hands it out) or PKCS#8. */
function keyOf(pem: string): KeyObject {
  let key = keys.get(pem);
  if (key === undefined) {
    key = createPrivateKey({ key: pem, format: 'pem' });
    if (keys.size > 100) keys.clear();
    keys.set(pem, key);
  }
  return key;
}

/** Whether `pem` is an RSA private key GitHub could have issued; the message says what is wrong. */
export function privateKeyProblem(pem: string): string | null {
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    return key.asymmetricKeyType === 'rsa' ? null : `The private_key is a ${key.asymmetricKeyType} key; a GitHub App's key is RSA.`;
  } catch {
    return "The private_key is not a PEM private key (GitHub's download starts with -----BEGIN RSA PRIVATE KEY-----).";
  }
}

export async function appJwt(credentials: { app_id: string; private_key: string }, now: Date): Promise<string> {
  const seconds = Math.floor(now.getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(credentials.app_id)
    .setIssuedAt(seconds - DRIFT_SECONDS)
    .setExpirationTime(seconds + LIFETIME_SECONDS)
    .sign(keyOf(credentials.private_key));
}

/** The key's base64 body without its armour or line breaks: its last characters are the connection's hint. */
export function pemBody(pem: string): string {
  return pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
}
