import { z } from 'zod';
import { address, commaList, u64String } from './params.js';

/*
 * Requests of Lend Earn, /lend/v1/earn (openapi/lend.yaml; jupiter-api.md §7). Amounts are raw strings, as the spec
 * types them. Bad input is answered `{error}` with 400.
 */

/** Body of /deposit and /withdraw (and their -instructions): `asset` (the underlying mint), `signer`, `amount` raw. */
export const amountBody = z.object({ asset: address, signer: address, amount: u64String });
/** Body of /mint and /redeem (and their -instructions): `shares` in base units of the jlToken. */
export const sharesBody = z.object({ asset: address, signer: address, shares: u64String });

/** A comma-separated list of addresses in a query parameter (1 to 100). */
const addressList = commaList(address, 1, 100, 'address');
/** Query of GET /positions: `users`, comma-separated (required). */
export const positionsQuery = z.object({ users: addressList });
/** Query of GET /earnings: `user` and `positions` (jlToken mints, comma-separated), both required. */
export const earningsQuery = z.object({ user: address, positions: addressList });
