/** A configuration mistake found at start-up: the message names the setting and what it must be. */
export class ConfigError extends Error {}
