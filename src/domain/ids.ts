import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

/** Opaque, URL-safe, unique and time-sortable (a ULID): sorting ids sorts by creation time. */
export const newId = (): string => ulid();

/** Ids we issue are ULIDs; anything else in a path cannot name one of our rows. */
export const ID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
