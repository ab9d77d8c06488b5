/** apkrelay device client: the platform-neutral core, its Node adapters and the Cordova facade. */
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
export { canonicalJson } from './core/signed-events';
export { Client, createNodeClient, broadcaster } from './node/index';
export type { NodeStartParams } from './node/index';
export { cordovaFacade } from './cordova';
