/** apkrelay device client: the platform-neutral core and its Node adapters. */
export { DeviceClient, StartParamsError, REQUIRED_START_PARAMS } from './core/client';
export type { StartParams, ClientOptions } from './core/client';
export type { ClientEvent, EventListener } from './core/events';
export type * from './core/ports';
export {
  Strategy,
  StatusBarStrategy,
  FriendlyPopUpStrategy,
  AnnoyingPopUpStrategy,
  CustomStrategy,
  DEFAULT_TEXTS,
} from './core/strategies';
export type { StrategyName } from './core/strategies';
export { canonicalJson } from './protocol/canonical-json';
export { Client, createNodeClient, broadcaster } from './node/index';
export type { NodeStartParams } from './node/index';
