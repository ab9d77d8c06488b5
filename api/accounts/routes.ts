import { bearerAuth, currentAccount } from '../auth';
import type { ApiDeps } from '../deps';
import { accountContract, signUpContract } from './contracts';
import type { Route } from '../route-table';
import { publicSignUp } from './sign-up';

export function accountRoutes(deps: ApiDeps): Route[] {
  return [
    {
      method: 'post',
      path: '/api/v2/accounts',
      hosts: ['admin'],
      access: 'public',
      contract: signUpContract,
      handlers: [
        async (req, res) => {
          const body = (req.body ?? {}) as Record<string, unknown>;
          const { account, apiKey } = await publicSignUp(deps, req, res, {
            email: body.email,
            password: body.password,
          });
          res
            .status(201)
            .json({ id: account.id, email: account.email, apiKey, plan: account.plan });
        },
      ],
    },
    {
      method: 'get',
      path: '/api/v2/account',
      hosts: ['admin'],
      access: 'apiKey',
      contract: accountContract,
      handlers: [
        bearerAuth(deps),
        async (_req, res) => {
          const account = currentAccount(res);
          const apiKey = await deps.accounts.revealApiKey(account.id);
          res.json({ id: account.id, email: account.email, apiKey, plan: account.plan });
        },
      ],
    },
  ];
}
