/**
 * apkrelay's Cordova API, shaped as PushLink's Cordova plugin 6.x: `PushLink.start({apiKey,
 * deviceId, successCallback, errorCallback})`, then every function with `(…, success, error)`.
 * Each call is one `cordova.exec` to the Java bridge (src/android/ApkRelayPlugin.java), which
 * answers the callbacks: failures reach `error` with the library's message, never a throw.
 * plugin.xml exposes this object as `window.PushLink` and `window.ApkRelay`.
 */
'use strict';

var exec = require('cordova/exec');

var SERVICE = 'ApkRelay';

function call(action, args, success, error) {
  exec(success, error, SERVICE, action, args);
}

/** `{name, message, stack}` of an Error, or of anything else thrown. */
function describeError(e) {
  var isObject = e !== null && typeof e === 'object';
  return {
    name: isObject && e.name ? String(e.name) : 'Error',
    message: isObject && e.message !== undefined ? String(e.message) : String(e),
    stack: isObject && e.stack ? String(e.stack) : '',
  };
}

module.exports = {
  STATUS_BAR: 'STATUS_BAR',
  FRIENDLY_POPUP: 'FRIENDLY_POPUP',
  ANNOYING_POPUP: 'ANNOYING_POPUP',
  CUSTOM: 'CUSTOM',
  /** PushLink's earlier name of CUSTOM; the bridge takes it as CUSTOM. */
  NINJA: 'NINJA',

  /**
   * `start({apiKey, deviceId, successCallback, errorCallback})`; optional `pushUrl`, `baseUrl`
   * and `pushKey` override the plugin's variables. The form before PushLink's 6.0.1,
   * `start(packageName, apiKey, deviceId, success, error)`, is accepted too.
   */
  start: function (options) {
    var o = options;
    if (typeof options !== 'object' || options === null) {
      o = {
        apiKey: arguments[1],
        deviceId: arguments[2],
        successCallback: arguments[3],
        errorCallback: arguments[4],
      };
    }
    var args = { apiKey: o.apiKey, deviceId: o.deviceId };
    ['pushUrl', 'baseUrl', 'pushKey'].forEach(function (key) {
      if (o[key] !== undefined) args[key] = o[key];
    });
    call('start', [args], o.successCallback, o.errorCallback);
  },

  /**
   * `setCurrentStrategy(name[, properties], success, error)`. Properties are the strategy
   * object's setters without `set`: statusBarTitle, statusBarDescription (STATUS_BAR);
   * popUpMessage, notNowButton, updateButton, reminderTimeInSeconds (FRIENDLY_POPUP);
   * popUpMessage, updateButton (ANNOYING_POPUP).
   */
  setCurrentStrategy: function (strategy, properties, success, error) {
    if (typeof properties === 'function' || properties === undefined) {
      call('setCurrentStrategy', [strategy, null], properties, success);
      return;
    }
    call('setCurrentStrategy', [strategy, properties], success, error);
  },

  /** `success(name)` with the current strategy's name. */
  getCurrentStrategy: function (success, error) {
    call('getCurrentStrategy', [], success, error);
  },

  /** `success(true)` when an update is downloaded but not applied; the user is notified again. */
  hasPendingUpdate: function (success, error) {
    call('hasPendingUpdate', [], success, error);
  },

  /**
   * Installs the downloaded update now, whatever the strategy (a kiosk with nobody there):
   * `success(true)` when one was handed to the installer, `success(false)` when none is downloaded
   * or idle is false.
   */
  applyUpdate: function (success, error) {
    call('applyUpdate', [], success, error);
  },

  idle: function (isIdle, success, error) {
    call('idle', [isIdle], success, error);
  },

  addMetadata: function (key, value, success, error) {
    call('addMetadata', [key, value], success, error);
  },

  addExceptionMetadata: function (key, value, success, error) {
    call('addExceptionMetadata', [key, value], success, error);
  },

  /** `sendAsyncException(error[, extra], success, error)`: a handled error, delivered in the background. */
  sendAsyncException: function (e, extra, success, error) {
    if (typeof extra === 'function') {
      call('sendAsyncException', [describeError(e), null], extra, success);
      return;
    }
    call('sendAsyncException', [describeError(e), extra || null], success, error);
  },

  enableExceptionNotification: function (success, error) {
    call('enableExceptionNotification', [], success, error);
  },

  disableExceptionNotification: function (success, error) {
    call('disableExceptionNotification', [], success, error);
  },

  setMaxExceptionQueueSize: function (size, success, error) {
    call('setMaxExceptionQueueSize', [size], success, error);
  },
};
