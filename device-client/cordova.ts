/**
 * A Cordova-style facade, called as PushLink's Cordova plugin 6.x is: `start({apiKey, deviceId,
 * successCallback, errorCallback})`, then every method with `(…, success, error)` callbacks.
 * Errors (missing start parameters, a null metadata key…) reach `error` with their message,
 * never a throw. The platform's other start parameters are given when the facade is made.
 */
import type { DeviceClient, StartParams } from './core/client';
import { isStrategyName } from './core/strategies';

type Ok<T = unknown> = ((value: T) => void) | undefined;
type Fail = ((message: string) => void) | undefined;

function call<T>(fn: () => T, success: Ok<T>, error: Fail): void {
  let value: T;
  try {
    value = fn();
  } catch (err) {
    error?.((err as Error).message);
    return;
  }
  success?.(value);
}

export function cordovaFacade<P extends StartParams>(
  client: DeviceClient<P>,
  platform: Omit<P, 'apiKey' | 'deviceId'>,
) {
  const strategySetter =
    (method: string) =>
    (value: string | number, success?: Ok, error?: Fail): void =>
      call(
        () => {
          const s = client.getCurrentStrategy() as unknown as Record<string, unknown>;
          const setter = s[method];
          if (typeof setter !== 'function')
            throw new TypeError(`the current strategy has no ${method}`);
          (setter as (v: unknown) => void).call(s, value);
        },
        success,
        error,
      );
  return {
    start(o: {
      apiKey: string;
      deviceId: string;
      successCallback?: Ok;
      errorCallback?: Fail;
    }): void {
      const { apiKey, deviceId } = o ?? {};
      call(
        () => client.start({ ...platform, apiKey, deviceId } as unknown as P),
        o?.successCallback,
        o?.errorCallback,
      );
    },
    setCurrentStrategy(name: string, success?: Ok, error?: Fail): void {
      call(
        () => {
          if (!isStrategyName(name)) throw new TypeError(`unknown strategy: ${name}`);
          client.setCurrentStrategy(name);
        },
        success,
        error,
      );
    },
    getCurrentStrategy(success?: Ok<string>, error?: Fail): void {
      call(() => client.getCurrentStrategy().name, success, error);
    },
    setStatusBarTitle: strategySetter('setStatusBarTitle'),
    setStatusBarDescription: strategySetter('setStatusBarDescription'),
    setPopUpMessage: strategySetter('setPopUpMessage'),
    setNotNowButton: strategySetter('setNotNowButton'),
    setUpdateButton: strategySetter('setUpdateButton'),
    setReminderTimeInSeconds: strategySetter('setReminderTimeInSeconds'),
    setCurrentActivity(activity: unknown, success?: Ok, error?: Fail): void {
      call(() => client.setCurrentActivity(activity), success, error);
    },
    idle(value: boolean, success?: Ok, error?: Fail): void {
      call(() => client.idle(value), success, error);
    },
    hasPendingUpdate(success?: Ok<boolean>, error?: Fail): void {
      call(() => client.hasPendingUpdate(), success, error);
    },
    applyUpdate(success?: Ok<boolean>, error?: Fail): void {
      client.applyUpdate().then(
        (ok) => success?.(ok),
        (err: unknown) => error?.((err as Error).message),
      );
    },
    addMetadata(key: string, value: string, success?: Ok, error?: Fail): void {
      call(() => client.addMetadata(key, value), success, error);
    },
    addExceptionMetadata(key: string, value: string, success?: Ok, error?: Fail): void {
      call(() => client.addExceptionMetadata(key, value), success, error);
    },
    sendAsyncException(
      e: unknown,
      extra: Record<string, string> | undefined,
      success?: Ok,
      error?: Fail,
    ): void {
      call(() => client.sendAsyncException(e, extra), success, error);
    },
    enableExceptionNotification(success?: Ok, error?: Fail): void {
      call(() => client.enableExceptionNotification(), success, error);
    },
    disableExceptionNotification(success?: Ok, error?: Fail): void {
      call(() => client.disableExceptionNotification(), success, error);
    },
    setMaxExceptionQueueSize(size: number, success?: Ok, error?: Fail): void {
      call(() => client.setMaxExceptionQueueSize(size), success, error);
    },
  };
}
