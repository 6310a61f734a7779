import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { expectValidationError } from '../helpers/contract.js';

const it = appTest.extend(
  'create',
  ({ ctx, user }) =>
    (body: unknown) =>
      ctx.request({ method: 'POST', url: '/api/v1/tokens', token: user.token, body }),
);

// api-v1 4 POST /tokens, D3 (422 shape), D12 (trimming, strict types).
describe('POST /api/v1/tokens validation', () => {
  it('returns 422 with "The name field is required." when name is missing', async ({ create }) => {
    const response = await create({ abilities: ['read'] });
    expectValidationError(response, ['name']);
    expect(response.json()).toEqual({
      error: 'Validation Failed',
      message: 'The name field is required.',
      errors: { name: ['The name field is required.'] },
    });
  });

  it('treats a whitespace-only name as missing (D12)', async ({ create }) => {
    const response = await create({ name: '   ', abilities: ['read'] });
    expectValidationError(response, ['name']);
    expect(response.json().errors.name).toEqual(['The name field is required.']);
  });

  it('rejects a name longer than 255 characters', async ({ create }) => {
    const response = await create({ name: 'n'.repeat(256), abilities: ['read'] });
    expectValidationError(response, ['name']);
    expect(response.json().errors.name).toEqual(['The name may not be greater than 255 characters.']);
  });

  it('counts the name length in Unicode characters, not bytes (D12)', async ({ create }) => {
    const ok = await create({ name: 'é'.repeat(255), abilities: ['read'] });
    expect(ok.statusCode).toBe(201);
  });

  it.for([[12345], [true], [['CI']], [{ value: 'CI' }]])('rejects a non-string name %j (D12)', async ([name], { create }) => {
    const response = await create({ name, abilities: ['read'] });
    expectValidationError(response, ['name']);
  });

  it('returns 422 when abilities is missing', async ({ create }) => {
    const response = await create({ name: 'x' });
    expectValidationError(response, ['abilities']);
    expect(response.json().errors.abilities).toEqual(['The abilities field is required.']);
  });

  it('returns 422 when abilities is empty', async ({ create }) => {
    const response = await create({ name: 'x', abilities: [] });
    expectValidationError(response, ['abilities']);
  });

  it('returns 422 when abilities is a string instead of an array (D12)', async ({ create }) => {
    const response = await create({ name: 'x', abilities: 'read' });
    expectValidationError(response, ['abilities']);
  });

  it('reports an invalid ability under its index (abilities.1, D3)', async ({ create }) => {
    const response = await create({ name: 'x', abilities: ['read', 'root'] });
    expectValidationError(response, ['abilities.1']);
    expect(response.json().errors['abilities.1']).toEqual(['The selected abilities.1 is invalid.']);
  });

  it('rejects a non-string ability', async ({ create }) => {
    const response = await create({ name: 'x', abilities: [1] });
    expectValidationError(response, ['abilities.0']);
  });

  it('reports every failing field at once', async ({ create }) => {
    const response = await create({ name: '', abilities: [] });
    expectValidationError(response, ['name', 'abilities']);
  });

  it('returns 422 for an empty body', async ({ ctx, user }) => {
    const response = await ctx.request({ method: 'POST', url: '/api/v1/tokens', token: user.token });
    expectValidationError(response, ['name', 'abilities']);
  });

  it('stores no token when validation fails', async ({ ctx, user, create }) => {
    await create({ name: 'x', abilities: ['read', 'root'] });
    await create({ name: 'n'.repeat(256), abilities: ['read'] });
    const rows = await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', user.id).execute();
    expect(rows).toHaveLength(1);
  });
});
