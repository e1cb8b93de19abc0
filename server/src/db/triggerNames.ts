/**
 * The names of the write triggers (tracking/triggers.ts makes them): the schema cache reads which of them a table has,
 * the installers put them on.
 */

/** The count trigger whose argument names the owner column the counts are kept for. */
export const COUNT_TRIGGER = '_basalt_count_i';
/** The statement count triggers; with an owner column, `_basalt_count_u` moves a row between owners. */
export const COUNT_TRIGGER_NAMES = ['_basalt_count_i', '_basalt_count_d', '_basalt_count_t'] as const;
export const OWNER_MOVE_TRIGGER = '_basalt_count_u';
/** The capture triggers: enabled while somebody streams the table. */
export const CAPTURE_TRIGGER_NAMES = ['_basalt_capture_i', '_basalt_capture_u', '_basalt_capture_d', '_basalt_capture_t'] as const;
