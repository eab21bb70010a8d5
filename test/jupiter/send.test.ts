import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { BadRequestError, LimitError, SchemaError } from '../../src/jupiter/errors.js';
import {
  bindSend,
  craftClawback,
  craftSend,
  getInviteHistory,
  getPendingInvites,
  inviteKeypairFromCode,
  invitePdaFromCode,
} from '../../src/jupiter/send/index.js';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SENDER = 'BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV';
const RECEIVER = 'HYbxGkNvEwvZ14RzJHPB9h3dWfXjxwAEhkyzJRHx1hBf';
const TX = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAEN';
const CODE = 'JupKeeper123';
const INVITE_SIGNER = '7wccgZQSAQMmVL4Nuhg5EW3vi8jf76bs5YBDAjnkgowv';
const INVITE_PDA = 'DD1vhzJAiFpEcvRUHjRuACSamzX1vXNJzJT9NcWmzF1y';

/** The spec's pending-invite example, with real addresses (the example's PDA holds `I`, which base58 excludes). */
const PENDING_INVITE = {
  invite_signer: INVITE_SIGNER,
  invite_pda: INVITE_PDA,
  sender: SENDER,
  expiry: '2025-03-22T10:30:00.000Z',
  amount: '1000000',
  creation_tx: '4xKpN2hT8YqWv3JxV5r1cQ9m7ZbLkE6uGdFsA2oRjPnHtXw',
  deletion_tx: null,
  receiver: null,
  action: 'created',
  creation_time: '2025-03-15T10:30:00.000Z',
  deletion_time: null,
  mint: USDC,
  confirmed: 1,
};

const CLAIMED_INVITE = {
  ...PENDING_INVITE,
  deletion_tx: '5yLqO3jU9ZrXw4KyW6s2dR1n8AcMmF7vHeGtB3pSkQoJuYx',
  receiver: RECEIVER,
  action: 'claimed',
  deletion_time: '2025-03-16T08:15:00.000Z',
  confirmed: true,
};

describe('the Send endpoints', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  describe('when crafting a send', () => {
    it('posts the invite signer, sender, amount as a digit string and mint, and parses the fee to bigint', async () => {
      server.on('POST', '/send/v1/craft-send', { body: { tx: TX, expiry: '2025-03-22T10:30:00.000Z', totalFeeLamports: '2044280' } });
      const inviteSigner = inviteKeypairFromCode(CODE).publicKey.toBase58();
      const result = await craftSend(testTransport(server.url), { inviteSigner, sender: SENDER, amount: 1_000_000n, mint: USDC });
      expect(result).toEqual({ tx: TX, expiry: '2025-03-22T10:30:00.000Z', totalFeeLamports: 2044280n });
      const [req] = server.requestsTo('/send/v1/craft-send', 'POST');
      expect(req!.body).toEqual({ inviteSigner: INVITE_SIGNER, sender: SENDER, amount: '1000000', mint: USDC });
    });

    it('leaves mint out so the service defaults to wSOL', async () => {
      server.on('POST', '/send/v1/craft-send', { body: { tx: TX, expiry: '2025-03-22T10:30:00.000Z', totalFeeLamports: '5000' } });
      await craftSend(testTransport(server.url), { inviteSigner: INVITE_SIGNER, sender: SENDER, amount: 10_000_000n });
      const body = server.requestsTo('/send/v1/craft-send')[0]!.body as Record<string, unknown>;
      expect(body).toEqual({ inviteSigner: INVITE_SIGNER, sender: SENDER, amount: '10000000' });
      expect('mint' in body).toBe(false);
    });

    it('rejects a response without a transaction, naming the field', async () => {
      server.on('POST', '/send/v1/craft-send', { body: { expiry: '2025-03-22T10:30:00.000Z', totalFeeLamports: '5000' } });
      const err = await craftSend(testTransport(server.url), { inviteSigner: INVITE_SIGNER, sender: SENDER, amount: 1n }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).endpoint).toBe('send.craftSend');
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('tx');
    });

    it('maps the service error body {error} to BadRequestError', async () => {
      server.on('POST', '/send/v1/craft-send', { status: 400, body: { error: 'Invalid mint' } });
      const err = await craftSend(testTransport(server.url), { inviteSigner: INVITE_SIGNER, sender: SENDER, amount: 1n, mint: USDC }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).body).toEqual({ error: 'Invalid mint' });
    });

    it.each([
      [{ amount: 0n }, 'send.amount.positive'],
      [{ amount: 1n << 64n }, 'send.amount.u64'],
      [{ inviteSigner: 'invite-code-here' }, 'send.inviteSigner.address'],
      [{ sender: '' }, 'send.sender.address'],
      [{ mint: 'USDC' }, 'send.mint.address'],
    ])('rejects %o with LimitError before any request', async (override, rule) => {
      const params = { inviteSigner: INVITE_SIGNER, sender: SENDER, amount: 5n, ...override };
      const err = await craftSend(testTransport(server.url), params).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when crafting a clawback', () => {
    it('posts the invite PDA derived from the code and the sender', async () => {
      server.on('POST', '/send/v1/craft-clawback', { body: { tx: TX } });
      const invitePDA = invitePdaFromCode(CODE).toBase58();
      await expect(craftClawback(testTransport(server.url), { invitePDA, sender: SENDER })).resolves.toEqual({ tx: TX });
      expect(server.requestsTo('/send/v1/craft-clawback', 'POST')[0]!.body).toEqual({ invitePDA: INVITE_PDA, sender: SENDER });
    });

    it('rejects the spec example PDA, which is not base58, before any request', async () => {
      const err = await craftClawback(testTransport(server.url), { invitePDA: '8mF4HKoPQNmtbRvTRqotb4LW3pz5rR3eB7owZL9FVKIW', sender: SENDER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe('send.invitePDA.address');
      expect(server.requests).toHaveLength(0);
    });

    it('rejects an empty transaction', async () => {
      server.on('POST', '/send/v1/craft-clawback', { body: { tx: '' } });
      const err = await craftClawback(testTransport(server.url), { invitePDA: INVITE_PDA, sender: SENDER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('tx');
    });
  });

  describe('when listing pending invites', () => {
    it('sends address and page, and parses snake_case invites to camelCase with a bigint amount', async () => {
      server.on('GET', '/send/v1/pending-invites', { body: { invites: [PENDING_INVITE], hasMoreData: true } });
      const page = await getPendingInvites(testTransport(server.url), { address: SENDER, page: 2 });
      const [req] = server.requestsTo('/send/v1/pending-invites', 'GET');
      expect(req!.query.get('address')).toBe(SENDER);
      expect(req!.query.get('page')).toBe('2');
      expect(page.hasMoreData).toBe(true);
      expect(page.invites).toEqual([
        {
          inviteSigner: INVITE_SIGNER,
          invitePda: INVITE_PDA,
          sender: SENDER,
          expiry: '2025-03-22T10:30:00.000Z',
          amount: 1000000n,
          creationTx: PENDING_INVITE.creation_tx,
          deletionTx: null,
          receiver: null,
          action: 'created',
          creationTime: '2025-03-15T10:30:00.000Z',
          deletionTime: null,
          mint: USDC,
          confirmed: true,
        },
      ]);
    });

    it('reads confirmed as an integer, a boolean or null (the spec disagrees with itself)', async () => {
      const invites = [0, 1, true, false, null].map((confirmed) => ({ ...PENDING_INVITE, confirmed }));
      server.on('GET', '/send/v1/pending-invites', { body: { invites, hasMoreData: false } });
      const page = await getPendingInvites(testTransport(server.url), { address: SENDER });
      expect(page.invites.map((i) => i.confirmed)).toEqual([false, true, true, false, null]);
      expect(server.requestsTo('/send/v1/pending-invites')[0]!.query.has('page')).toBe(false);
    });

    it('rejects a non-numeric amount, naming the invite and the field', async () => {
      server.on('GET', '/send/v1/pending-invites', { body: { invites: [PENDING_INVITE, { ...PENDING_INVITE, amount: '1.5' }], hasMoreData: false } });
      const err = await getPendingInvites(testTransport(server.url), { address: SENDER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).endpoint).toBe('send.pendingInvites');
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('invites.1.amount');
    });

    it.each([
      [{ address: 'someone' }, 'send.address.address'],
      [{ address: SENDER, page: 0 }, 'send.page.min'],
      [{ address: SENDER, page: 1.5 }, 'send.page.min'],
    ])('rejects %o with LimitError before any request', async (params, rule) => {
      const err = await getPendingInvites(testTransport(server.url), params).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when reading the invite history', () => {
    it('parses claimed invites with their receiver and deletion fields', async () => {
      server.on('GET', '/send/v1/invite-history', { body: { invites: [CLAIMED_INVITE], hasMoreData: false } });
      const page = await getInviteHistory(testTransport(server.url), { address: RECEIVER, page: 1 });
      expect(server.requestsTo('/send/v1/invite-history', 'GET')[0]!.query.get('address')).toBe(RECEIVER);
      expect(page).toEqual({
        hasMoreData: false,
        invites: [
          expect.objectContaining({
            amount: 1000000n,
            receiver: RECEIVER,
            action: 'claimed',
            deletionTx: CLAIMED_INVITE.deletion_tx,
            deletionTime: '2025-03-16T08:15:00.000Z',
            confirmed: true,
          }),
        ],
      });
    });

    it('reads invites whose nullable fields are absent, and a SOL invite with a null mint', async () => {
      const { deletion_tx: _a, receiver: _b, action: _c, deletion_time: _d, confirmed: _e, ...bare } = PENDING_INVITE;
      server.on('GET', '/send/v1/invite-history', { body: { invites: [{ ...bare, mint: null }], hasMoreData: false } });
      const page = await getInviteHistory(testTransport(server.url), { address: SENDER });
      expect(page.invites[0]).toMatchObject({ mint: null, receiver: null, action: null, deletionTx: null, deletionTime: null, confirmed: null });
    });

    it('rejects a page without hasMoreData', async () => {
      server.on('GET', '/send/v1/invite-history', { body: { invites: [] } });
      const err = await getInviteHistory(testTransport(server.url), { address: SENDER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('hasMoreData');
    });
  });

  describe('when bound to a transport', () => {
    it('exposes every Send endpoint with the transport filled in', async () => {
      server.on('POST', '/send/v1/craft-clawback', { body: { tx: TX } });
      const send = bindSend(testTransport(server.url));
      expect(Object.keys(send).sort()).toEqual(['craftClawback', 'craftSend', 'getInviteHistory', 'getPendingInvites']);
      await expect(send.craftClawback({ invitePDA: INVITE_PDA, sender: SENDER })).resolves.toEqual({ tx: TX });
    });
  });
});
