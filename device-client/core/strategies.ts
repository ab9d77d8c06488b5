/**
 * The update strategies of spec section 4.4, their setters and defaults. A strategy object holds
 * texts only; what it does (notify, popup, broadcast) is the pending-update controller's.
 */
export const Strategy = {
  STATUS_BAR: 'STATUS_BAR',
  FRIENDLY_POPUP: 'FRIENDLY_POPUP',
  ANNOYING_POPUP: 'ANNOYING_POPUP',
  CUSTOM: 'CUSTOM',
} as const;
export type StrategyName = (typeof Strategy)[keyof typeof Strategy];

export const STRATEGY_NAMES: readonly StrategyName[] = Object.values(Strategy);

export function isStrategyName(value: unknown): value is StrategyName {
  return typeof value === 'string' && (STRATEGY_NAMES as readonly string[]).includes(value);
}

export const DEFAULT_TEXTS = {
  statusBarTitle: (appName: string) => `New version of ${appName}`,
  statusBarDescription: 'Click to Update',
  friendlyMessage: (appName: string) =>
    `A new version of ${appName} is available. Do you want to update now?`,
  notNow: 'Not Now',
  update: 'Update',
  annoyingMessage: (appName: string) =>
    `${appName} needs to be updated for security reasons. Please update now.`,
  friendlyReminderSeconds: 3 * 60 * 60,
} as const;

function text(value: string, what: string): string {
  if (typeof value !== 'string' || value === '')
    throw new TypeError(`${what} must be a non-empty string`);
  return value;
}

export class StatusBarStrategy {
  readonly name = Strategy.STATUS_BAR;
  private title: string | null = null;
  private description: string = DEFAULT_TEXTS.statusBarDescription;
  setStatusBarTitle(title: string): void {
    this.title = text(title, 'status bar title');
  }
  setStatusBarDescription(description: string): void {
    this.description = text(description, 'status bar description');
  }
  getStatusBarTitle(appName: string): string {
    return this.title ?? DEFAULT_TEXTS.statusBarTitle(appName);
  }
  getStatusBarDescription(): string {
    return this.description;
  }
}

export class FriendlyPopUpStrategy {
  readonly name = Strategy.FRIENDLY_POPUP;
  private message: string | null = null;
  private notNow: string = DEFAULT_TEXTS.notNow;
  private update: string = DEFAULT_TEXTS.update;
  private reminderSeconds: number = DEFAULT_TEXTS.friendlyReminderSeconds;
  setPopUpMessage(message: string): void {
    this.message = text(message, 'popup message');
  }
  setNotNowButton(label: string): void {
    this.notNow = text(label, 'Not Now button');
  }
  setUpdateButton(label: string): void {
    this.update = text(label, 'Update button');
  }
  setReminderTimeInSeconds(seconds: number): void {
    if (!Number.isInteger(seconds) || seconds < 1)
      throw new TypeError('reminder time must be a whole number of seconds, at least 1');
    this.reminderSeconds = seconds;
  }
  getPopUpMessage(appName: string): string {
    return this.message ?? DEFAULT_TEXTS.friendlyMessage(appName);
  }
  getNotNowButton(): string {
    return this.notNow;
  }
  getUpdateButton(): string {
    return this.update;
  }
  getReminderTimeInSeconds(): number {
    return this.reminderSeconds;
  }
}

export class AnnoyingPopUpStrategy {
  readonly name = Strategy.ANNOYING_POPUP;
  private message: string | null = null;
  private update: string = DEFAULT_TEXTS.update;
  setPopUpMessage(message: string): void {
    this.message = text(message, 'popup message');
  }
  setUpdateButton(label: string): void {
    this.update = text(label, 'Update button');
  }
  getPopUpMessage(appName: string): string {
    return this.message ?? DEFAULT_TEXTS.annoyingMessage(appName);
  }
  getUpdateButton(): string {
    return this.update;
  }
}

export class CustomStrategy {
  readonly name = Strategy.CUSTOM;
}

export type StrategyObject =
  StatusBarStrategy | FriendlyPopUpStrategy | AnnoyingPopUpStrategy | CustomStrategy;

/** One object per strategy, kept across switches so customisations survive them. */
export class Strategies {
  private current: StrategyName = Strategy.STATUS_BAR;
  readonly objects = {
    STATUS_BAR: new StatusBarStrategy(),
    FRIENDLY_POPUP: new FriendlyPopUpStrategy(),
    ANNOYING_POPUP: new AnnoyingPopUpStrategy(),
    CUSTOM: new CustomStrategy(),
  };
  set(name: StrategyName): void {
    if (!isStrategyName(name))
      throw new TypeError(`strategy must be one of ${STRATEGY_NAMES.join(', ')}`);
    this.current = name;
  }
  get name(): StrategyName {
    return this.current;
  }
  get object(): StrategyObject {
    return this.objects[this.current];
  }
}
