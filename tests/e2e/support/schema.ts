import { expect } from '@playwright/test';
import { Ajv } from 'ajv';

const ajv = new Ajv({ strict: false });

/** Fails the test, with ajv's errors, unless `value` is valid against the JSON schema `schema`. */
export function expectValid(schema: object, value: unknown): void {
  const validate = ajv.compile(schema);
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
}
