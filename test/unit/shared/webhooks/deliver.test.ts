import { pinnedAddress } from '../../../../shared/webhooks/deliver';

const options = { allowPrivate: false, timeoutMs: 50 };

test('a name server that never answers fails the attempt at the delivery deadline', async () => {
  const never = () => new Promise<never>(() => undefined);
  await expect(
    pinnedAddress(new URL('https://hooks.example.com/in'), { ...options, resolve: never }),
  ).rejects.toThrow('hooks.example.com: no address in 50 ms');
});

test('the first resolved address is pinned when every one is public', async () => {
  const resolve = () =>
    Promise.resolve([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
  await expect(
    pinnedAddress(new URL('https://hooks.example.com/in'), { ...options, resolve }),
  ).resolves.toEqual({ address: '93.184.215.14', family: 4 });
});
