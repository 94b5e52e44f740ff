import { v7 as uuidv7 } from 'uuid';

/** Shape of an id minted by `mintErrorId`: `err_` + 32 lowercase hex. */
export const ERROR_ID_PATTERN = /^err_[0-9a-f]{32}$/;

/**
 * A new error id: `err_` + the 32 lowercase hex digits of a UUIDv7 (time-ordered, so the audit
 * store's primary key grows at its right edge; DESIGN §5). Same shape DMC-12 uses (`err_<hex>`).
 */
export function mintErrorId(): string {
  return `err_${uuidv7().replace(/-/g, '')}`;
}
