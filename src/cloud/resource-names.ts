import { LmtabError } from '../errors/index.js';

const dnsLabel = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

// Knative names a revision NAME-00001 and its private Service NAME-00001-private, and every
// Kubernetes Service name is at most 63 characters: NAME gets 49.
const maxServiceName = 49;

/**
 * Throws `invalid_request` unless `value` is a DNS label (lower case letters, digits and `-`,
 * starting with a letter, at most `max` characters), as Kubernetes names and URL segments need.
 */
export function assertDnsLabel(value: string, what: string, max = 63): void {
  if (!dnsLabel.test(value) || value.length > max) {
    throw new LmtabError(
      'invalid_request',
      `Expected ${what} of lower case letters, digits and '-', starting with a letter, at most ${max} characters, got ${JSON.stringify(value)}.`,
      { param: what },
    );
  }
}

/** The Knative Service of an app: `ORG-APP`, checked against Knative's length limit. */
export function appServiceName(org: string, app: string): string {
  assertDnsLabel(org, 'an org');
  assertDnsLabel(app, 'an app name');
  const name = `${org}-${app}`;
  if (name.length > maxServiceName) {
    throw new LmtabError(
      'invalid_request',
      `Expected ORG-APP to be at most ${maxServiceName} characters (Knative adds revision suffixes), got ${JSON.stringify(name)} (${name.length}).`,
      { param: 'app name' },
    );
  }
  return name;
}
