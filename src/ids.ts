// Ids are a type prefix and a ULID: sortable by creation time, so "starting_after" cursors page in a stable order.
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

export type IdPrefix = 'acc' | 'key' | 'prj' | 'ent' | 'fct' | 'cnd' | 'dec' | 'rel' | 'chp' | 'men' | 'bt' | 'cfl' | 'idm' | 'stv' | 'aud';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${next().toLowerCase()}`;
}
