import type { ObjectId } from 'mongodb';

export type Role = 'owner' | 'operator';

export interface Plan {
  /** How many installations may be enabled at once (free plan: 5). */
  readonly installations: number;
}

export const FREE_PLAN: Plan = Object.freeze({ installations: 5 });

export interface AccountDoc {
  _id: ObjectId;
  /** Lower-cased; unique. */
  email: string;
  passwordHash: string;
  apiKeyLookup: string;
  apiKeySealed: string;
  /** The owner restricted the account key to the device routes (docs/keys.md); unset: false. */
  apiKeyDeviceOnly?: boolean;
  plan: Plan;
  roles: Role[];
  createdAt: Date;
  updatedAt: Date;
}

/** What the rest of the service sees of an authenticated account. */
export interface Account {
  readonly id: string;
  readonly email: string;
  readonly plan: Plan;
  readonly roles: readonly Role[];
}

export function toAccount(doc: AccountDoc): Account {
  return { id: doc._id.toHexString(), email: doc.email, plan: doc.plan, roles: doc.roles };
}
