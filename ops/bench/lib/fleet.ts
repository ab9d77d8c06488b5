/**
 * What the device-fleet benches (fan-out, legacy push, registrations) share: how many devices
 * they may connect and the flags that say how many, and their start-up: the open-file limit
 * raised for that many connections, then one deployment, stopped when the bench ends.
 */
import { startDeployment, type Deployment, type DeploymentOptions } from '../../dev/deployment';
import { ensureOpenFiles } from './fanout-setup';
import { whole, wholes, type BenchContext } from './runner';

export const MAX_DEVICES = 20_000;
/** Open files beyond the connections: the API's own sockets, Mongo/Redis connections, files. */
export const FD_HEADROOM = 2_048;

/** `--devices` (connected devices per round) and `--clients` (client processes). */
export const FLEET_FLAGS = {
  devices: wholes(
    [1_000, 10_000],
    [1, MAX_DEVICES],
    `--devices takes counts from 1 to ${MAX_DEVICES}, e.g. --devices 1000,10000`,
    'connected devices per round, comma-separated',
  ),
  clients: whole(
    3,
    [1, 8],
    '--clients takes a count of client processes from 1 to 8',
    'client processes holding the connections',
  ),
} as const;

/** Raises the open-file limit for `devices` connections, then starts a deployment. */
export async function startFleetDeployment(
  devices: readonly number[],
  options: DeploymentOptions,
  { say, onExit }: BenchContext,
): Promise<Deployment> {
  const files = await ensureOpenFiles(Math.max(...devices) + FD_HEADROOM);
  say(`open-file limit ${files}; starting services, one API and one worker process ...`);
  const deployment = await startDeployment(options);
  onExit(() => deployment.stop());
  return deployment;
}
