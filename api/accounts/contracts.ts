/** Contracts of health, this document, sign-up and the caller's account. */
import { contract } from '../route-contract';
import { errorResponse, jsonBody } from '../openapi/common';

export const accountSchemas = {
  Plan: {
    type: 'object',
    required: ['installations'],
    properties: { installations: { type: 'integer', minimum: 0 } },
  },
  Account: {
    type: 'object',
    required: ['id', 'email', 'apiKey', 'plan'],
    properties: {
      id: { type: 'string' },
      email: { type: 'string', format: 'email' },
      apiKey: { type: 'string', description: 'Credential of the account; keep it secret.' },
      plan: { $ref: '#/components/schemas/Plan' },
    },
  },
};

/** A route answering 200 alone. */
const answers = (summary: string, description: string) =>
  contract({ summary, responses: { '200': { description } } });

export const livenessContract = answers('The process is alive.', 'Alive.');

export const readinessContract = contract({
  summary: 'Redis and MongoDB are reachable and every queue has a live worker.',
  responses: {
    '200': { description: 'Ready.' },
    '503': { description: 'Not ready; `checks` says which dependency is missing.' },
  },
});

export const openApiContract = answers('This document.', 'The OpenAPI document.');

export const signUpContract = contract({
  summary: 'Sign up: creates an account on the free plan and returns its API key.',
  requestBody: jsonBody({
    type: 'object',
    required: ['email', 'password'],
    properties: {
      email: { type: 'string', format: 'email' },
      password: { type: 'string', minLength: 8, maxLength: 1024 },
    },
  }),
  responses: {
    '201': {
      description: 'Created.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Account' } } },
    },
    '400': errorResponse('VALIDATION_FAILED (not counted by the sign-up limit)'),
    '403': errorResponse('SIGNUP_CLOSED: accounts are created by the operator (SIGNUP=closed).'),
    '409': errorResponse('ACCOUNT_EMAIL_TAKEN'),
    '429': errorResponse(
      'SIGNUP_RATE_LIMITED: too many sign-ups from this client (SIGNUPS_PER_ADDRESS per hour); Retry-After says when to try again.',
    ),
    '503': errorResponse('DEPENDENCY_UNAVAILABLE'),
  },
});

export const accountContract = contract({
  summary: "The caller's account, API key included.",
  security: [{ apiKey: [] }],
  responses: {
    '200': {
      description: 'The account.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Account' } } },
    },
    '401': errorResponse('UNAUTHENTICATED'),
  },
});
